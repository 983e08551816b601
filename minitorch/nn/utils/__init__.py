"""nn.utils: gradient clipping, parameter/vector conversion, rnn helpers (to come)."""
