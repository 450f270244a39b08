#!/bin/bash
# browser_check.sh: loads every page of a built site in headless Chromium and
# checks the DOM the browser built, not the bytes perfstudy wrote: the
# expected elements are there, the local sort script ran, and nothing from an
# input turned into markup (a live <script>, an on* handler, a javascript: URL),
# no console message (an error, a resource that failed to load), every <img>
# names a file of the site and has alt text. A screenshot of each page is kept
# in $ARTIFACTS (default build/test-artifacts/screenshots) to look at.
#
# Usage: tests/e2e/browser_check.sh SITE_DIR
# Exit: 0 all pages pass, 1 a check failed, 2 usage, 77 Chromium not installed
# (the automake "skipped" code). CHROMIUM=/path/to/binary picks the browser.

set -u

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 SITE_DIR" >&2
	exit 2
fi
site=$(cd "$1" && pwd)

browser=${CHROMIUM:-}
if [ -z "$browser" ]; then
	for b in chromium chromium-browser google-chrome; do
		if command -v "$b" >/dev/null 2>&1; then
			browser=$b
			break
		fi
	done
fi
if [ -z "$browser" ]; then
	echo "browser_check: skipped: chromium is not installed" >&2
	exit 77
fi

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
failures=0
artifacts=${ARTIFACTS:-build/test-artifacts/screenshots}
mkdir -p "$artifacts"

# How long one page may take to load before it counts as hung (a dialog
# never lets it finish). Generous: two tests share two cores under make -j2,
# and a hang, not a slow load, is what this catches.
load_limit=${BROWSER_LOAD_LIMIT:-240}

fail() {
	echo "$1: error: $2" >&2
	failures=$((failures + 1))
}

# The DOM of one page after load, on stdout; the page's console messages go
# to $profile/console (the browser's logging, of which only CONSOLE lines count).
dump_dom() {
	timeout "$load_limit" "$browser" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$profile" --enable-logging=stderr --v=0 \
		--dump-dom "file://$1" 2>"$profile/log"
	local rc=$?
	grep -F ':CONSOLE' "$profile/log" >"$profile/console"
	return $rc
}

# A full-width screenshot of the page, for a person to look at.
screenshot() {
	timeout "$load_limit" "$browser" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$profile" --hide-scrollbars --window-size=1280,2400 \
		--screenshot="$2" "file://$1" >/dev/null 2>&1 || fail "$1" "no screenshot"
}

# Console messages and images that are not files of the site.
check_loaded() {
	local page=$1 dom=$2 dir src
	dir=$(dirname "$page")
	if [ -s "$profile/console" ]; then
		fail "$page" "console message: $(head -n1 "$profile/console")"
	fi
	while read -r src; do
		[ -n "$src" ] || continue
		[ -s "$dir/$src" ] || fail "$page" "image $src is not a file of the site"
	done < <(grep -oE '<img [^>]*src="[^"]*"' <<<"$dom" | sed -E 's/.*src="([^"]*)"/\1/')
	if [ "$(grep -oE '<img [^>]*>' <<<"$dom" | grep -vcE ' alt="[^"]+"')" -ne 0 ]; then
		fail "$page" "an image without alt text"
	fi
}

# A page that opens a dialog (an injected alert(), say) never finishes loading.
no_dom() {
	if [ "$2" -eq 124 ]; then
		fail "$1" "page did not finish loading in $load_limit s (a script opening a dialog, such as an injected alert(), does this)"
	else
		fail "$1" "chromium returned no DOM (exit $2)"
	fi
}

need() {
	local page=$1 dom=$2 pattern=$3 what=$4
	grep -qF -- "$pattern" <<<"$dom" || fail "$page" "missing $what"
}

check_common() {
	local page=$1 dom=$2
	need "$page" "$dom" "<h1>" "<h1>"
	need "$page" "$dom" "style.css" "the stylesheet link"
	# Text from an input shows as &lt;script&gt;; a literal tag is an injection.
	if grep -qiF "<script>alert" <<<"$dom"; then
		fail "$page" "an input became a live <script> element"
	fi
	local scripts
	scripts=$(grep -oiE "<script[^>]*>" <<<"$dom" | grep -vF '<script src="../assets/sort.js" defer="">')
	[ -z "$scripts" ] || fail "$page" "unexpected script element: $(head -n1 <<<"$scripts")"
	if grep -qiE "<[a-z][^>]*[[:space:]]on[a-z]+=\"" <<<"$dom"; then
		fail "$page" "an element carries an on* event handler"
	fi
	if grep -qiE "(href|src)=\"[[:space:]]*javascript:" <<<"$dom"; then
		fail "$page" "a javascript: URL"
	fi
	if grep -qiE "(href|src)=\"(https?:)?//" <<<"$dom"; then
		fail "$page" "a link or resource outside the site"
	fi
}

pages=0
index="$site/index.html"
if [ ! -f "$index" ]; then
	fail "$index" "no such file"
else
	dom=$(dump_dom "$index")
	rc=$?
	pages=$((pages + 1))
	if [ -z "$dom" ]; then
		no_dom "$index" "$rc"
	else
		check_common "$index" "$dom"
		check_loaded "$index" "$dom"
	fi
	screenshot "$index" "$artifacts/index.png"
fi

for page in "$site"/*/index.html; do
	[ -f "$page" ] || continue
	dir=$(dirname "$page")
	dom=$(dump_dom "$page")
	rc=$?
	pages=$((pages + 1))
	if [ -z "$dom" ]; then
		no_dom "$page" "$rc"
		continue
	fi
	check_common "$page" "$dom"
	check_loaded "$page" "$dom"
	id=$(basename "$dir")
	screenshot "$page" "$artifacts/$id.png"
	grep -qF "href=\"$id/index.html\"" "$index" 2>/dev/null ||
		fail "$index" "no link to $id/index.html"
	need "$page" "$dom" 'href="../index.html"' "the link back to ../index.html"
	need "$page" "$dom" "<table" "a <table>"
	need "$page" "$dom" 'id="methods"' "the Methods section"
	need "$page" "$dom" 'id="provenance"' "the Provenance section"
	# sort.js turns headers into buttons: proof that the local script ran.
	need "$page" "$dom" '<button type="button" class="sort">' "sort buttons (sort.js did not run)"
	for svg in "$dir"/figures/*.svg; do
		[ -f "$svg" ] || continue
		name=$(basename "$svg" .svg)
		need "$page" "$dom" "<img src=\"figures/$name.svg\"" "<img> for figures/$name.svg"
	done
	for csv in "$dir"/data/*.csv; do
		[ -f "$csv" ] || continue
		name=$(basename "$csv")
		need "$page" "$dom" "href=\"data/$name\"" "a CSV link to data/$name"
	done
done

if [ "$failures" -ne 0 ]; then
	echo "browser_check: $failures problem(s) in $pages page(s)" >&2
	exit 1
fi
echo "browser_check: $pages page(s) ok"
