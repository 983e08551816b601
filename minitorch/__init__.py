"""minitorch: PyTorch's imperative deep learning in pure Python over NumPy (CPU) and CuPy (GPU)."""
