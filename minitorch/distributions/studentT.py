"""torch.distributions.studentT: StudentT (in student_t.py)."""

from __future__ import annotations

from minitorch.distributions.student_t import StudentT

__all__ = ["StudentT"]
