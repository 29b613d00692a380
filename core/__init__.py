"""Compiled engine cores (Cython); each mirrors its reference engine in ``sim/`` bit for bit."""
