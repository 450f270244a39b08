#!/bin/bash
# t_inject.sh: nothing injected. Strings from the inputs (kernel names, a
# manifest's title, labels and description) that look like markup or like
# spreadsheet formulas stay text in HTML, SVG and CSV; output goes only under
# -o; perfstudy's source has no way to run a program or open a connection,
# and (with strace) the example build makes no such system call.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/study/traces"
# Names written as JSON strings: the reader unescapes them.
cat >"$T/study/traces/rank0.json" <<'JSON'
{"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 100},
{"ph": "X", "cat": "kernel", "name": "<script>alert(1)</script>", "ts": 1, "dur": 10, "args": {"device": 0, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "=HYPERLINK(\"http://example.com\",\"x\")", "ts": 12, "dur": 9, "args": {"device": 0, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "+cmd|' /C calc'!A0", "ts": 22, "dur": 8, "args": {"device": 0, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "-2+3", "ts": 31, "dur": 7, "args": {"device": 0, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "@SUM(A1:A2)", "ts": 39, "dur": 6, "args": {"device": 0, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "<img src=x onerror=alert(2)>\"'&", "ts": 46, "dur": 5, "args": {"device": 0, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "]]></text><script>alert(3)</script>", "ts": 52, "dur": 4, "args": {"device": 0, "stream": 7}}
]}
JSON
cat >"$T/study/study.yaml" <<'YAML'
id: inject
title: "<script>alert('title')</script>"
description: "</p><iframe src=javascript:alert(4)></iframe>"
runs:
  - id: run.1
    label: "<b onmouseover=alert(5)>=1+1</b>"
    strategy: "=cmd"
    model: { name: "<svg onload=alert(6)>" }
    traces: traces/rank0.json
YAML
touch "$T/marker"
sleep 1
(cd "$T" && "$OLDPWD/$PERFSTUDY" build -q study/study.yaml -o site) 2>"$T/err"
[ $? -eq 0 ] && ok || bad "build failed: $(cat "$T/err")"
# Output only under -o: nothing else in the working directory is new.
new=$(cd "$T" && find . -newer marker -not -path './site' -not -path './site/*' -not -name err | sort | tr '\n' ' ')
[ "$new" = ". " ] || [ -z "$new" ] && ok || bad "files written outside the output directory: $new"


# HTML and SVG: no element or attribute from an input survives as markup.
for f in $(find "$T/site" -name '*.html' -o -name '*.svg'); do
	if grep -Eiq '<script>alert|<img src=x|<iframe|<b onmouseover|<svg onload' "$f"; then
		bad "markup from an input in ${f#$T/}"
	else
		ok
	fi
done
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$T/site/inject/index.html" && ok ||
	bad "the kernel named <script> is not shown as text"
grep -q "&lt;script&gt;alert(&#39;title&#39;)&lt;/script&gt;" "$T/site/inject/index.html" && ok ||
	bad "the title is not shown as text"
# Every SVG is well-formed XML (an unescaped '<' or '&' would break it).
if command -v python3 >/dev/null; then
	python3 - "$T/site" <<'PY' && ok || bad "an SVG is not well-formed XML"
import sys, pathlib, xml.dom.minidom
for p in pathlib.Path(sys.argv[1]).rglob('*.svg'):
    xml.dom.minidom.parse(str(p))
PY
fi

# CSV: text cells that start with = + - @ (or tab, CR) get a leading ',
# numbers do not. Read with Python's csv module, independent of perfstudy.
if command -v python3 >/dev/null; then
	python3 - "$T/site/inject/data" >"$T/csvcheck" 2>&1 <<'PY'
import csv, sys, pathlib, re
bad = 0
num = re.compile(r'^-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?$')
for p in sorted(pathlib.Path(sys.argv[1]).glob('*.csv')):
    for row in csv.reader(open(p, newline='')):
        for cell in row:
            if cell[:1] in ('=', '+', '-', '@', '\t', '\r') and not num.match(cell):
                print(f'{p.name}: formula-like cell {cell!r}')
                bad = 1
sys.exit(bad)
PY
	[ $? -eq 0 ] && ok || bad "CSV cells that a spreadsheet would run: $(head -5 "$T/csvcheck")"
	for name in "'=HYPERLINK(\"\"http://example.com\"\",\"\"x\"\")" "'+cmd|' /C calc'!A0" "'-2+3" "'@SUM(A1:A2)"; do
		grep -qF "$name" "$T/site/inject/data/kernels.csv" && ok || bad "kernels.csv: $name not neutralized as expected"
	done
else
	skipped "python3 not installed: CSV cells not checked"
fi

# perfstudy runs no program and opens no connection: not in the source...
# (fork alone runs no program: figures are drawn in forked copies of
# perfstudy itself, src/chart/chart_many.c, which exec nothing.)
if grep -rnE '\b(system|popen|execl|execlp|execle|execv|execvp|execvpe|fexecve|posix_spawnp?|vfork|socket|connect|getaddrinfo|gethostbyname)[[:space:]]*\(' src/ |
	grep -vE '^\S+:[0-9]+:\s*(/?\*|//)' >"$T/calls"; then
	bad "src/ calls a process or network function: $(head -3 "$T/calls")"
else
	ok
fi
# ... nor in the binary's imports ...
if command -v nm >/dev/null; then
	nm -D --undefined-only "$PERFSTUDY" | grep -wE 'system|popen|execv|execvp|execve|execl|execlp|posix_spawn|vfork|socket|connect|getaddrinfo' >"$T/syms"
	[ -s "$T/syms" ] && bad "perfstudy imports: $(tr '\n' ' ' <"$T/syms")" || ok
fi
# ... nor at run time (strace, when installed).
if command -v strace >/dev/null; then
	# LeakSanitizer cannot run under ptrace: off for this one run of a sanitizer build.
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=execve,socket,connect -o "$T/strace" $PERFSTUDY build -q experiments/h200/study.yaml -o "$T/ex" 2>/dev/null
	n=$(grep -cE 'execve\(|socket\(|connect\(' "$T/strace")
	# The one execve is strace starting perfstudy itself.
	[ "$n" -eq 1 ] && ok || bad "the example build made system calls to run programs or connect: $(head -5 "$T/strace")"
else
	skipped "strace not installed: system calls not traced"
fi
finish
