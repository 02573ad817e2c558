"""moac's Python helpers. moac.torch: build and load .moa programs as PyTorch operators (docs/pytorch.md)."""
