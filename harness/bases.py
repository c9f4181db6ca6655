"""The kernel bases the series is built on: configs/bases.ini.

One section per base (mainline, ...): the Debian package that ships
the pinned tarball and its checksums, and where the base's work tree,
exported patches and cover letter live. The work tree and the patch folder
are paired by name: build/linux <-> patches/ for the base whose tree is
build/linux, build/linux-<name> <-> backports/<name>/ for every other one.
"""
import configparser
import dataclasses
import os
import re
import shlex

REQUIRED = ('linux', 'package', 'version', 'suite', 'fetch', 'tarball',
            'sha256', 'tree', 'patches', 'series', 'guest_fragments', 'options_on',
            'options_off')
# Keys whose value is a list of configs/ fragment names.
FRAGMENT_KEYS = ('guest_fragments', 'options_on', 'options_off')
FETCH_METHODS = ('install', 'download')
MAIN_TREE, MAIN_PATCHES = 'build/linux', 'patches'
_NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._-]*$')
_SHA256 = re.compile(r'^[0-9a-f]{64}$')
_ENV = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')


class BaseError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Base:
    name: str
    linux: str              # kernel version: 7.3-rc7
    package: str            # Debian package: linux-source-7.3
    version: str            # its exact version
    suite: str              # the suite that serves it
    fetch: str              # install or download (see bases.ini)
    tarball: str            # path of the tarball inside the package
    sha256: str             # of the tarball
    deb_sha256: str         # of the .deb ('' when not pinned)
    tarball_env: str        # variable naming a local copy ('' for none)
    tree: str               # work tree, relative to the repository
    patches: str            # exported series, relative to the repository
    series: str             # cover-letter.txt and version
    guest_fragments: tuple  # fragments of every kernel of this base that boots
    options_on: tuple       # the series' options on (make check)
    options_off: tuple      # and off

    def options(self, which):
        """The option fragments of this base, 'on' or 'off'."""
        return {'on': self.options_on, 'off': self.options_off}[which]

    @property
    def title(self):
        """'Linux 7.3-rc7': what the base is, for logs and reports."""
        return f'Linux {self.linux}'

    @property
    def commit_message(self):
        """The subject of the base commit (tag base) of the work tree."""
        return f'Linux {self.linux} (Debian {self.package} {self.version})'

    def shell(self):
        """base_* assignments for `eval` in scripts/ (values shell-quoted;
        lower case, so that they cannot clobber a user's BASE_TARBALL)."""
        fields = dataclasses.asdict(self)
        fields['commit_message'] = self.commit_message
        return ''.join(f'base_{k}={shlex.quote(" ".join(v) if isinstance(v, tuple) else v)}\n'
                       for k, v in fields.items())


def _parse_section(name, sec):
    where = f'base {name}'
    if not _NAME.match(name):
        raise BaseError(f'{where}: a base name is letters, digits, ".", "_" and "-"')
    missing = [k for k in REQUIRED if not sec.get(k, '').strip()]
    if missing:
        raise BaseError(f'{where}: missing {", ".join(missing)}')
    unknown = sorted(set(sec) - set(REQUIRED) - {'deb_sha256', 'tarball_env'})
    if unknown:
        raise BaseError(f'{where}: unknown key {", ".join(unknown)}')
    v = {k: sec.get(k, '').strip() for k in REQUIRED + ('deb_sha256', 'tarball_env')}
    if v['fetch'] not in FETCH_METHODS:
        raise BaseError(f'{where}: fetch must be {" or ".join(FETCH_METHODS)}, '
                        f'not {v["fetch"]!r}')
    for key in ('sha256', 'deb_sha256'):
        if v[key] and not _SHA256.match(v[key]):
            raise BaseError(f'{where}: {key} is not 64 lower-case hex digits: {v[key]!r}')
    if v['fetch'] == 'download' and not v['deb_sha256']:
        raise BaseError(f'{where}: fetch = download needs deb_sha256')
    if v['tarball_env'] and not _ENV.match(v['tarball_env']):
        raise BaseError(f'{where}: tarball_env is not a variable name: {v["tarball_env"]!r}')
    if not os.path.isabs(v['tarball']):
        raise BaseError(f'{where}: tarball must be an absolute path inside the package')
    for key in ('tree', 'patches', 'series'):
        p = v[key]
        if os.path.isabs(p) or '..' in p.split('/') or p != os.path.normpath(p):
            raise BaseError(f'{where}: {key} must be a plain path inside the '
                            f'repository, not {p!r}')
    # The pairing a stop hook relies on: build/linux <-> patches,
    # build/linux-<name> <-> backports/<name>.
    if v['tree'] == MAIN_TREE:
        if v['patches'] != MAIN_PATCHES:
            raise BaseError(f'{where}: tree {MAIN_TREE} goes with patches = '
                            f'{MAIN_PATCHES}, not {v["patches"]!r}')
    elif (v['tree'], v['patches']) != (f'build/linux-{name}', f'backports/{name}'):
        raise BaseError(f'{where}: tree and patches must be build/linux-{name} and '
                        f'backports/{name} (or {MAIN_TREE} and {MAIN_PATCHES}), not '
                        f'{v["tree"]!r} and {v["patches"]!r}')
    for key in FRAGMENT_KEYS:
        v[key] = tuple(v[key].split())
    return Base(name=name, **v)


def parse(text, source='bases.ini'):
    """{name: Base} of the bases in @text, in file order."""
    cp = configparser.ConfigParser(interpolation=None)
    try:
        cp.read_string(text, source)
    except configparser.Error as e:
        raise BaseError(f'{source}: {e}') from None
    table = {name: _parse_section(name, cp[name]) for name in cp.sections()}
    if not table:
        raise BaseError(f'{source}: no bases')
    for key in ('tree', 'patches', 'series'):
        seen = {}
        for b in table.values():
            other = seen.setdefault(getattr(b, key), b.name)
            if other != b.name:
                raise BaseError(f'{source}: bases {other} and {b.name} share '
                                f'{key} {getattr(b, key)!r}')
    return table


def load(path):
    try:
        with open(path) as f:
            return parse(f.read(), path)
    except OSError as e:
        raise BaseError(f'cannot read {path}: {e.strerror}') from None


def lookup(table, name):
    if name in table:
        return table[name]
    raise BaseError(f'unknown base {name!r} (known: {", ".join(table)})')


def describe(table):
    width = max(len(n) for n in table)
    return '\n'.join(f'  {b.name:<{width}}  {b.title} (Debian {b.package} {b.version}); '
                     f'tree {b.tree}, patches {b.patches}/' for b in table.values())
