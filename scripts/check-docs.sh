#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-docs.sh: the documentation still matches the code, as one KTAP
# suite.
#
#   - every "blkfloor CMD ..." command line shown in a code block of
#     README.md or Documentation/usage.rst names a command the CLI has,
#     every option it uses is listed by "blkfloor CMD --help", and the CLI
#     parses the line (run with its devices replaced by a path that does
#     not exist, it must not exit 2, the usage status);
#   - every CLI command is shown in README.md or usage.rst, and described
#     in the man page;
#   - the generated tables of Documentation/netlink.rst match the YNL spec
#     (scripts/netlink-rst.py), and every op of the spec is described in
#     its prose;
#   - every Documentation/*.rst parses without docutils warnings.
#
# Nothing here touches a device: commands run in an empty temporary
# directory, "monitor", "stop" and "help" are never run, and every
# /dev/... or $variable argument becomes /nonexistent/blkfloor-check.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
cli=$top/user/blkfloor
spec=Documentation/netlink/specs/blkfloor.yaml
docs=(README.md Documentation/usage.rst)

if [ ! -x "$cli" ]; then
	make -s -C user >/dev/null 2>&1 || true
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One tab-separated line per command shown: FILE:LINE, then the command
# line from "blkfloor" on. In a block with "$ " prompts only the prompt
# lines are commands (the rest is output).
python3 - "${docs[@]}" >"$tmp/cmds" <<'EOF'
import re
import sys

CMD = re.compile(r'''(?:^|[\s'"(;|&])(?:[\w.$/{}-]*/)?blkfloor\s+([a-z][a-z-]*)''')
STOP = re.compile(r'''\s(?:&&|\|\||[|;>&#)'"]|2>)|\s*$''')


def blocks(path, lines):
    """(first line number, [lines]) of every code block."""
    out, i = [], 0
    if path.endswith('.md'):
        while i < len(lines):
            if lines[i].lstrip().startswith('```'):
                j = i + 1
                while j < len(lines) and not lines[j].lstrip().startswith('```'):
                    j += 1
                out.append((i + 2, lines[i + 1:j]))
                i = j
            i += 1
        return out
    while i < len(lines):
        ln = lines[i].rstrip()
        if ln.endswith('::') and not ln.lstrip().startswith('.. ') or \
           ln.lstrip().startswith('.. code-block::'):
            base = len(ln) - len(ln.lstrip())
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            start, blk = j, []
            while j < len(lines) and (not lines[j].strip() or
                                      len(lines[j]) - len(lines[j].lstrip())
                                      > base):
                blk.append(lines[j])
                j += 1
            out.append((start + 1, blk))
            i = j
            continue
        i += 1
    return out


for path in sys.argv[1:]:
    lines = open(path).read().split('\n')
    for start, blk in blocks(path, lines):
        # join continuation lines
        joined, k = [], 0
        while k < len(blk):
            no, text = start + k, blk[k]
            while text.rstrip().endswith('\\') and k + 1 < len(blk):
                k += 1
                text = text.rstrip()[:-1] + ' ' + blk[k].strip()
            joined.append((no, text.strip()))
            k += 1
        prompts = any(t.startswith('$ ') or t.startswith('# ') and
                      'blkfloor' in t for _, t in joined)
        for no, text in joined:
            if prompts:
                if not text.startswith('$ '):
                    continue
                text = text[2:]
            elif text.startswith('#'):
                continue
            for m in CMD.finditer(text):
                before = text[:m.start(1)].rsplit('blkfloor', 1)[0]
                if re.search(r'(modprobe|rmmod|insmod)(\s+-\S+)*\s*$',
                             before):
                    continue
                # $(...) and ${...} are one argument
                rest = re.sub(r'\$[({][^)}]*[)}]', '$ARG', text[m.start(1):])
                end = STOP.search(rest)
                cmd = rest[:end.start()] if end else rest
                print(f'{path}:{no}\tblkfloor {cmd.strip()}')
EOF

mapfile -t shown <"$tmp/cmds"
commands=$("$cli" help 2>/dev/null | awk '/^Commands:/{c=1; next} c && /^  [a-z]/{print $1} /^$/{c=0}')
nops=$(python3 -c 'import sys,yaml; print(len(yaml.safe_load(open(sys.argv[1]))["operations"]["list"]))' "$spec")
ncmds=$(printf '%s\n' "$commands" | grep -c .)

echo "KTAP version 1"
echo "1..$(( 1 + ncmds + 3 + 2 ))"
n=0 rc=0
result() { # ok? description
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; rc=1; fi
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

if [ -z "$commands" ]; then
	diag "cannot list the CLI's commands ($cli help failed)"
fi

# ---- every command line shown --------------------------------------------
# (one result for all of them: each line is only parsed against a device
# that does not exist, and 56 such parses are one check, not 56 passes)
badlines=0
for entry in "${shown[@]}"; do
	where=${entry%%$'\t'*}
	line=${entry#*$'\t'}
	read -r -a argv <<<"$line"
	cmd=${argv[1]}
	bad=0
	if ! grep -qx -- "$cmd" <<<"$commands"; then
		diag "$where: no command '$cmd' in '$line'"
		badlines=$((badlines + 1))
		continue
	fi
	help=$("$cli" "$cmd" --help 2>&1)
	for a in "${argv[@]:2}"; do
		case $a in
		--*) opt=${a%%=*} ;;
		-o) opt=-o ;;
		-*) opt=$a ;;
		*) continue ;;
		esac
		if ! grep -qE -- "(^|[[ ,])$opt([] ,=]|$)" <<<"$help"; then
			diag "$where: '$cmd --help' does not list $opt"
			bad=1
		fi
	done
	case $cmd in
	monitor|stop|help) ;;
	*)
		# Parse it for real, against nothing that exists.
		args=()
		for a in "${argv[@]:1}"; do
			case $a in
			/dev/*|\$*|*'$('*) args+=(/nonexistent/blkfloor-check) ;;
			*) args+=("$a") ;;
			esac
		done
		out=$(cd "$tmp" && mkdir -p run && cd run &&
		      timeout 10 "$cli" "${args[@]}" </dev/null 2>&1)
		st=$?
		# a 2 for a file that is not there is bad input, not usage
		if [ $st = 2 ] && ! grep -q '^Usage: ' <<<"$out" &&
		   grep -q ': No such file or directory$' <<<"$out"; then
			st=1
		fi
		if [ $st = 2 ] || [ $st = 124 ]; then
			diag "$where: '${args[*]}' exited $st:" "$out"
			bad=1
		fi
		;;
	esac
	[ $bad = 0 ] || { diag "$where: $line: bad"; badlines=$((badlines + 1)); }
done
diag "${#shown[@]} command lines shown in ${docs[*]}, $badlines bad"
result "$([ ${#shown[@]} -gt 0 ] && [ $badlines = 0 ] && echo 0 || echo 1)" \
	"every command line the docs show names a command, options its --help lists, and parses"

# ---- every command documented ----------------------------------------------
for cmd in $commands; do
	bad=0
	if ! cut -f2 "$tmp/cmds" | awk '{print $2}' | grep -qx -- "$cmd" &&
	   [ "$cmd" != help ]; then
		diag "blkfloor $cmd is not shown in ${docs[*]}"
		bad=1
	fi
	if ! grep -qE -- "^\.B[IR]?( blkfloor)? \"?$cmd\b|^\.BR .*\b$cmd\b" user/blkfloor.8; then
		diag "blkfloor $cmd is not described in user/blkfloor.8"
		bad=1
	fi
	result $bad "command $cmd is documented"
done

# ---- netlink.rst against the YNL spec ------------------------------------
out=$(python3 scripts/netlink-rst.py "$spec" Documentation/netlink.rst 2>&1)
st=$?
[ $st = 0 ] || diag "$out" "(scripts/netlink-rst.py --update $spec Documentation/netlink.rst regenerates the tables)"
result $st "Documentation/netlink.rst tables match $spec"

missing=$(python3 - "$spec" <<'EOF'
import re, sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
text = open('Documentation/netlink.rst').read()
# prose only: drop the generated blocks
text = re.sub(r'^\.\. generated: .*?^\.\. end generated: [^\n]*', '', text,
              flags=re.S | re.M)
for op in spec['operations']['list']:
    name = op['name'].upper().replace('-', '_')
    if not re.search(r'^``%s``' % name, text, re.M):
        print(name)
EOF
)
[ -z "$missing" ] || diag "ops without a description in Documentation/netlink.rst:" $missing
result "$([ -z "$missing" ] && echo 0 || echo 1)" "every one of the $nops ops is described in Documentation/netlink.rst"

# ---- reStructuredText parses ---------------------------------------------
if python3 -c 'import docutils' 2>/dev/null; then
	out=$(python3 - Documentation/*.rst <<'EOF'
import io, sys
import docutils.core
from docutils.parsers.rst import Directive, directives


class Sphinx(Directive):
    """toctree and friends: Sphinx-only, not an error of the document"""
    has_content = True
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec = {'maxdepth': directives.unchanged,
                   'caption': directives.unchanged}

    def run(self):
        return []


directives.register_directive('toctree', Sphinx)
bad = 0
for f in sys.argv[1:]:
    err = io.StringIO()
    docutils.core.publish_doctree(
        open(f).read(), source_path=f,
        settings_overrides={'report_level': 2, 'halt_level': 5,
                            'warning_stream': err})
    if err.getvalue():
        print(err.getvalue())
        bad = 1
sys.exit(bad)
EOF
)
	st=$?
	[ $st = 0 ] || diag "$out"
	result $st "Documentation/*.rst parse without docutils warnings"
else
	n=$((n + 1)); echo "ok $n Documentation/*.rst parse # SKIP python3-docutils not installed"
fi

# ---- the man page renders ------------------------------------------------
out=$(LC_ALL=C.UTF-8 groff -man -ww -z user/blkfloor.8 2>&1)
st=$?
[ -z "$out" ] || st=1
[ $st = 0 ] || diag "$out"
result $st "user/blkfloor.8 renders without groff warnings"

# ---- the man page names every option ---------------------------------------
# The options of the shared table (user/run/opts.c) and every "--name" the
# commands compare their arguments with.
missing=
for o in $({ sed -n 's/^[[:space:]]*{ "\([a-z][a-z0-9-]*\)", BF_O_.*/\1/p' user/run/opts.c
	     grep -ho '"--[a-z][a-z0-9-]*"' user/nl/*.c user/dev/*.c user/run/*.c user/cmd/*.c |
		tr -d '"' | sed 's/^--//'; } |
	   sort -u); do
	grep -qF -- "\\-\\-$(printf '%s' "$o" | sed 's/-/\\-/g')" user/blkfloor.8 ||
		missing="$missing --$o"
done
[ -z "$missing" ] || diag "not in user/blkfloor.8:$missing"
result "$([ -z "$missing" ] && echo 0 || echo 1)" "user/blkfloor.8 documents every option of the CLI"
exit $rc
