#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks the man pages against what they document, so that a function, a
# field or an option cannot change without its page:
# - every function the public headers export (HIO_API) has man/man3/NAME.3,
#   and no section 3 page (file or NAME line) names any other function;
# - each function's page names it, includes its header and shows the
#   header's prototype; every struct or enum a page shows is the header's,
#   field for field, and every one the headers define is shown somewhere;
# - every page renders with no groff warning (groff -man -ww -z);
# - each reference to a section 3 page leads to one, hybridio(7) refers to
#   every section 3 page, and hio-bench(1) names every option that
#   hio-bench --help lists and none that it does not.
# Usage: tests/abi/check_man.sh REPO_ROOT HIO_BENCH
set -eu
[ $# -eq 2 ] || { echo "usage: $0 REPO_ROOT HIO_BENCH" >&2; exit 2; }
root=$1 bench=$2
man=$root/man
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "check_man: $*" >&2; fail=1; }

# C declarations, from the headers or from a rendered page. Comments and
# preprocessor lines go (a page's #include lines with them); what is left
# is read as one line. Prints "F name prototype" for each HIO_API function
# (the prototype without HIO_API, whitespace squeezed) and
# "T name field|field|..." for each typedef'd struct or enum with a body.
scan() {
  awk '
    cont { cont = /\\$/; next }
    /^[ \t]*#/ { cont = /\\$/; next }
    { sub(/\/\/.*/, ""); src = src $0 "\n" }
    END {
      out = ""
      while ((i = index(src, "/*")) > 0) {
        rest = substr(src, i + 2)
        j = index(rest, "*/")
        if (j == 0) { src = substr(src, 1, i - 1); break }
        out = out substr(src, 1, i - 1) " "
        src = substr(rest, j + 2)
      }
      src = out src
      gsub(/[ \t\n]+/, " ", src)
      n = split(src, seg, ";")
      for (k = 1; k <= n; k++) {
        if ((i = index(seg[k], "HIO_API ")) == 0) continue
        d = substr(seg[k], i + 8)
        sub(/^ +/, "", d); sub(/ +$/, "", d)
        if (match(d, /[A-Za-z_][A-Za-z0-9_]* ?\(/)) {
          name = substr(d, RSTART, RLENGTH - 1); sub(/ $/, "", name)
          print "F " name " " d ";"
        }
      }
      re = "typedef (struct|enum) [A-Za-z_][A-Za-z0-9_]* ?[{][^}]*[}] ?[A-Za-z_][A-Za-z0-9_]* ?;"
      while (match(src, re)) {
        t = substr(src, RSTART, RLENGTH)
        src = substr(src, RSTART + RLENGTH)
        split(t, w, " ")
        name = w[3]; sub(/[{].*/, "", name)
        body = t; sub(/^[^{]*[{]/, "", body); sub(/[}].*/, "", body)
        sep = w[2] == "enum" ? "," : ";"
        m = split(body, f, sep)
        fields = ""
        for (x = 1; x <= m; x++) {
          g = f[x]; sub(/^ +/, "", g); sub(/ +$/, "", g)
          if (g != "") fields = fields (fields == "" ? "" : "|") g
        }
        print "T " name " " fields
      }
    }'
}

# A page as text, as man shows it (a .so link page shows its target).
render() { (cd "$man" && groff -man -Tascii -P-c -P-b -P-u "$1" 2>/dev/null); }

# The lines of one section (heading NAME) of rendered text.
section() { awk -v h="$1" '/^[A-Z][A-Z ]*[A-Z]$/ { on = ($0 == h); next } on'; }

# The page a section 3 page shows: itself, or the target of its .so line.
main_page() {
  target=$(sed -n 's|^\.so[ \t]\{1,\}man3/\(.*\)\.3[ \t]*$|\1|p' "$man/man3/$1.3" | head -n 1)
  echo "${target:-$1}"
}

# The function names on a page's NAME line (before "\-").
name_line() { awk '/^\.SH +"?NAME"?/ { getline; sub(/\\-.*/, ""); gsub(/,/, " "); print; exit }' "$1"; }

[ -d "$man/man3" ] || { echo "check_man: no $man/man3" >&2; exit 1; }
# Without groff every page would seem to render: say so instead.
command -v groff >/dev/null || { echo "check_man: groff is not installed (Debian: groff-base)" >&2; exit 1; }

for h in "$root"/include/hybridio/*.h; do
  scan <"$h" | sed "s|^F \([^ ]*\) |F \1 $(basename "$h") |"
done >"$tmp/decls"
awk '$1 == "F" { print $2 }' "$tmp/decls" | sort >"$tmp/funcs"
awk '$1 == "T"' "$tmp/decls" | sort >"$tmp/types"
[ -s "$tmp/funcs" ] || bad "no HIO_API function found in $root/include/hybridio/*.h"
ls "$man/man3" | sed -n 's/\.3$//p' | sort >"$tmp/pages"

# Pages and functions, one for one.
comm -23 "$tmp/funcs" "$tmp/pages" | while read -r f; do
  echo "man3/$f.3 is missing: $f is HIO_API in include/hybridio"
done >"$tmp/out"
comm -13 "$tmp/funcs" "$tmp/pages" | while read -r p; do
  echo "man3/$p.3 documents $p, which no header declares HIO_API"
done >>"$tmp/out"
for p in $(cat "$tmp/pages"); do
  [ "$(main_page "$p")" = "$p" ] || continue
  for n in $(name_line "$man/man3/$p.3"); do
    grep -qx "$n" "$tmp/funcs" || echo "man3/$p.3: its NAME line names $n, which no header declares HIO_API"
  done
done >>"$tmp/out"

# Each function on its page: named, its header included, its prototype shown.
while read -r kind f hdr proto; do
  [ "$kind" = F ] && [ -f "$man/man3/$f.3" ] || continue
  mp=$(main_page "$f")
  if [ ! -f "$man/man3/$mp.3" ]; then
    echo "man3/$f.3 links to man3/$mp.3, which does not exist"
    continue
  fi
  for s in NAME SYNOPSIS DESCRIPTION "RETURN VALUE" "SEE ALSO"; do
    grep -Eq "^\.SH +\"?$s\"?[ \t]*\$" "$man/man3/$mp.3" || echo "man3/$mp.3 has no $s section"
  done
  name_line "$man/man3/$mp.3" | tr ' ' '\n' | grep -qx "$f" || echo "man3/$mp.3 (the page of $f) does not name $f on its NAME line"
  syn=$(render "man3/$f.3" | section SYNOPSIS | tr -d ' \t\n')
  case $syn in *"#include<hybridio/$hdr>"*) ;; *) echo "man3/$mp.3: the synopsis of $f does not include <hybridio/$hdr>" ;; esac
  want=$(printf '%s' "$proto" | tr -d ' ')
  case $syn in *"$want"*) ;; *) echo "man3/$mp.3: the synopsis does not show $hdr's prototype: $proto" ;; esac
done <"$tmp/decls" >>"$tmp/out"

# Structs and enums: each one a page shows is the header's, and each one
# the headers define is shown.
: >"$tmp/shown"
for p in $(cat "$tmp/pages"); do
  [ "$(main_page "$p")" = "$p" ] || continue
  render "man3/$p.3" | scan | awk '$1 == "T"' | while read -r kind t fields; do
    echo "$t" >>"$tmp/shown"
    want=$(sed -n "s/^T $t //p" "$tmp/types")
    if [ -z "$want" ]; then
      echo "man3/$p.3 shows $t, which the headers do not define"
    elif [ "$fields" != "$want" ]; then
      echo "man3/$p.3 shows $t as {$fields}; the header has {$want}" | tr '|' ';'
    fi
  done
done >>"$tmp/out"
awk '{ print $2 }' "$tmp/types" | while read -r t; do
  grep -qx "$t" "$tmp/shown" || echo "no section 3 page shows $t (typedef in include/hybridio)"
done >>"$tmp/out"

# Rendering: any groff warning or error is a fault of the page.
for f in "$man"/man1/*.1 "$man"/man3/*.3 "$man"/man7/*.7; do
  [ -f "$f" ] || continue
  rel=${f#"$man"/}
  if ! msg=$(cd "$man" && groff -man -ww -z "$rel" 2>&1) || [ -n "$msg" ]; then
    echo "$rel does not render cleanly (groff -man -ww -z): $msg"
  fi
done >>"$tmp/out"

# References to section 3 pages, in every page, lead to a page.
for f in "$man"/man1/*.1 "$man"/man3/*.3 "$man"/man7/*.7; do
  [ -f "$f" ] || continue
  grep -Eo 'hio_[a-z0-9_]+(\\f[RPI])? ?\(3\)' "$f" | sed 's/[\\ (].*//' | sort -u | while read -r r; do
    [ -f "$man/man3/$r.3" ] || echo "${f#"$man"/} refers to $r(3), which has no page"
  done
done >>"$tmp/out"

# hybridio(7) is the index: it refers to every section 3 page.
if [ -f "$man/man7/hybridio.7" ]; then
  for p in $(cat "$tmp/pages"); do
    grep -Eq "(^|[^a-z0-9_])$p(\\\\f[RPI])? ?\\(3\\)" "$man/man7/hybridio.7" ||
      echo "man7/hybridio.7 does not refer to $p(3)"
  done >>"$tmp/out"
else
  echo "man7/hybridio.7 is missing" >>"$tmp/out"
fi

# hio-bench(1) against hio-bench --help: the options are the first column
# of the help's lines that start with "--" (the text around them may
# mention an option in passing). In the page's source "\-" is a minus.
if [ ! -f "$man/man1/hio-bench.1" ]; then
  echo "man1/hio-bench.1 is missing" >>"$tmp/out"
elif ! help=$("$bench" --help); then
  echo "$bench --help failed" >>"$tmp/out"
else
  printf '%s\n' "$help" | sed -n 's/^[ \t]\{1,\}\(--.*\)/\1/p' | sed 's/   *.*//' |
    grep -Eo -- '--[A-Za-z][A-Za-z0-9_-]*' | sort -u >"$tmp/opts"
  [ -s "$tmp/opts" ] || echo "$bench --help lists no option" >>"$tmp/out"
  grep -v '^\.\\"' "$man/man1/hio-bench.1" | sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\[&%]//g' >"$tmp/bench.txt"
  while read -r o; do
    grep -Eq -e "$o([^A-Za-z0-9_-]|\$)" "$tmp/bench.txt" || echo "man1/hio-bench.1 does not document $o (hio-bench --help lists it)"
  done <"$tmp/opts" >>"$tmp/out"
  grep -Eo -- '--[A-Za-z][A-Za-z0-9_-]*' "$tmp/bench.txt" | sort -u | comm -23 - "$tmp/opts" | while read -r o; do
    echo "man1/hio-bench.1 documents $o, which hio-bench --help does not list"
  done >>"$tmp/out"
fi

if [ -s "$tmp/out" ]; then
  sed 's/^/check_man: /' "$tmp/out" >&2
  exit 1
fi
[ "$fail" -eq 0 ] || exit 1
echo "check_man: $(wc -l <"$tmp/funcs") functions with their pages, $(wc -l <"$tmp/types") types shown as declared," \
  "$(wc -l <"$tmp/opts") hio-bench options documented, every page renders cleanly"
