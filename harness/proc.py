"""Running commands: a subprocess logged to a file, a scratch git worktree,
and the shell line of an argv (the reproduce lines of make check).

Every command whose output goes to a log goes through run(): the log gets
'$ <the command>' and then the output, so that a log says what made it.
"""
import os
import re
import shlex
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PLAIN = re.compile(r'^[\w@%+=:,./-]+$')


def shell_line(argv, root=ROOT):
    """@argv as one shell line, quoted where needed, with the paths inside
    @root (the repository) relative to it: a reproduce line runs from the
    repository, and a committed result names no machine's absolute path."""
    prefix = root.rstrip('/') + '/'
    out = []
    for a in argv:
        a = str(a).replace(prefix, '')
        if a == root:
            a = '.'
        out.append(a if _PLAIN.match(a) else shlex.quote(a))
    return ' '.join(out)


def run(argv, log, append=False, env=None, cwd=None, capture=True, nice=0):
    """Run @argv with '$ <argv>' and then its output written to @log
    (appended with @append). With @capture (the default) stdout and stderr
    also come back apart in the CompletedProcess; without, the output goes
    straight to the log as it comes (long builds) and nothing comes back but
    the exit status. Raises OSError when @argv cannot be started."""
    if nice:
        argv = ['nice', '-n', str(nice), *argv]
    os.makedirs(os.path.dirname(os.path.abspath(log)), exist_ok=True)
    with open(log, 'a' if append else 'w') as f:
        f.write('$ ' + shell_line(argv) + '\n')
        f.flush()
        if not capture:
            rc = subprocess.call(argv, stdout=f, stderr=subprocess.STDOUT, env=env, cwd=cwd)
            return subprocess.CompletedProcess(argv, rc)
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd)
        f.write(proc.stdout + proc.stderr)
    return proc


def tail(log, lines=25):
    """The last @lines lines of @log, for an error message."""
    with open(log, errors='replace') as f:
        return ''.join(f.readlines()[-lines:])


def git(repo, *args):
    """stdout of `git -C @repo @args`; CalledProcessError when it fails."""
    return subprocess.run(['git', '-C', repo, *args], check=True,
                          capture_output=True, text=True).stdout


def worktree(repo, path, commit, reset=False):
    """@path: a detached worktree of @repo at @commit, added when missing
    (scratch worktrees of make check and make bench, under build/wt/).
    @reset drops local changes first, new files included: a file a patch
    added would otherwise be there when the patch is applied again."""
    if not os.path.isdir(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        git(repo, 'worktree', 'prune')
        git(repo, 'worktree', 'add', '-q', '--detach', path, commit)
    else:
        if reset:
            git(path, 'reset', '-q', '--hard')
            git(path, 'clean', '-q', '-f', '-d')
        git(path, 'checkout', '-q', '--detach', commit)
    return path


def system_env():
    """The environment with Debian's /usr/bin first: checkpatch's spdxcheck
    and Sphinx need Debian's python3 and its packages, not a pyenv one."""
    return dict(os.environ, PATH='/usr/bin:/bin:' + os.environ.get('PATH', ''))
