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


# configs/bases.ini may hold one base; the harness takes several. These two
# sections, in its form, are what the tests of that take: mainline (tree
# build/linux, patches/) and "lts", an older kernel with a backport of the
# series (build/linux-lts <-> backports/lts/). Their fragments are names
# only: no test reads a proc-sysctl.config (older kernels' name for
# CONFIG_SYSCTL, /proc/sys, was CONFIG_PROC_SYSCTL).
SHA = 'a' * 64
MAINLINE_BASE = f"""[mainline]
linux = 7.3-rc7
package = linux-source-7.3
version = 7.3~rc7-1~exp1
suite = experimental
fetch = download
tarball = /usr/src/linux-source-7.3.tar.xz
sha256 = {SHA}
deb_sha256 = {SHA}
tarball_env = BASE_TARBALL
tree = build/linux
patches = patches
series = series
guest_fragments = sysctl
options_on = options-on
options_off = options-off
"""
LTS_BASE = f"""[lts]
linux = 6.6.90
package = linux-source-6.6
version = 6.6.90-1
suite = bookworm-backports
fetch = install
tarball = /usr/src/linux-source-6.6.tar.xz
sha256 = {SHA}
tree = build/linux-lts
patches = backports/lts
series = series/lts
guest_fragments = proc-sysctl
options_on = options-on zone-cma
options_off = options-off zone-cma-off
"""


def write_bases(d, text=MAINLINE_BASE + LTS_BASE):
    """configs/bases.ini's stand-in in directory @d (two bases by default)."""
    path = os.path.join(d, 'bases.ini')
    with open(path, 'w') as f:
        f.write(text)
    return path
