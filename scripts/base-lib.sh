# Sourced by scripts/: the facts of one kernel base, from configs/bases.ini.
#
#   load_base NAME   sets base_name, base_linux, base_package, base_version,
#                    base_suite, base_fetch, base_tarball, base_sha256,
#                    base_deb_sha256, base_tarball_env, base_tree,
#                    base_patches, base_series, base_commit_message
#                    (paths relative to $top); exits 2 on an unknown base.
#   base_names       the bases, one a line, in configs/bases.ini order
#
# Needs $top (the repository). configs/bases.ini has one parser, the
# harness's (harness/bases.py); this only asks it.
: "${PYTHON:=python3}"

load_base() {
	_vars=$(cd "$top" && "$PYTHON" -m harness bases --shell "$1") || exit 2
	eval "$_vars"
}

base_names() {
	(cd "$top" && "$PYTHON" -m harness bases --names) || exit 2
}
