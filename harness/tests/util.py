"""Helpers shared by the harness's tests."""
import os
import tempfile


def load_text(loader, text, suffix='.ini'):
    """Call @loader on a temporary file holding @text."""
    with tempfile.NamedTemporaryFile('w', suffix=suffix, delete=False) as f:
        f.write(text)
    try:
        return loader(f.name)
    finally:
        os.unlink(f.name)
