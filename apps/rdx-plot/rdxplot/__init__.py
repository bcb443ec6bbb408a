# SPDX-License-Identifier: BSD-3-Clause
"""rdx-plot's modules (apps/rdx-plot/rdx-plot.py is the program)."""
