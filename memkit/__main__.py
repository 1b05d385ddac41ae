from __future__ import annotations

from memkit.main import entrypoint

if __name__ == "__main__":
    entrypoint()
