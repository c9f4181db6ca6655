#!/bin/sh
# Run by `series.sh export` on each commit (git rebase --exec): make HEAD
# authored and signed off by the exporter, $SERIES_NAME <$SERIES_EMAIL>.
# Drops the Signed-off-by lines of the commit's previous author and the
# exporter's own, then adds the exporter's as the last trailer; keeps the
# author date and every other line. A commit already in that form is left
# untouched (same id), so exporting twice changes nothing.
set -eu
who="${SERIES_NAME:?} <${SERIES_EMAIL:?}>"
old=$(git log -1 --format='%an <%ae>')
msg=$(git log -1 --format=%B)
new=$(printf '%s\n' "$msg" |
	grep -vxF -e "Signed-off-by: $old" -e "Signed-off-by: $who" |
	git interpret-trailers --trailer "Signed-off-by: $who")
if [ "$old" = "$who" ] && [ "$new" = "$msg" ]; then
	exit 0
fi
printf '%s\n' "$new" |
	git commit -q --amend --no-verify --allow-empty --cleanup=verbatim \
		--author="$who" -F -
