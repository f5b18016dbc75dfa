#!/usr/bin/env bash
# Every man page in docs/man renders cleanly: man prints no warning for it (at man's width for a
# file, 80 columns), and it closes what it opens, which groff does not warn about: each .nf (or
# .EX) is closed by .fi (.EE) before the next paragraph, list item or section, and each .RS by
# .RE before the next section, so that no part of a page renders as unfilled raw text.
#   check_man_pages.sh DIRECTORY   (the folder of the pages; each problem is printed as
#                                   PAGE:LINE: what, and the status is 1)
set -euo pipefail
directory=$1
status=0
pages=("$directory"/*.1)
[[ -e ${pages[0]} ]] || { echo "check_man_pages: no pages in $directory" >&2; exit 1; }
for page in "${pages[@]}"; do
  if ! warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null); then
    echo "$page: man failed: $warnings"
    status=1
  elif [[ -n $warnings ]]; then
    echo "$page: $warnings"
    status=1
  fi
  awk -v page="$page" '
    function problem(what) { print page ":" FNR ": " what; failed = 1 }
    /^\.(nf|EX)([ \t]|$)/ {
      if (unfilled) problem($1 " inside the unfilled block opened at line " unfilled)
      unfilled = FNR
      next
    }
    /^\.(fi|EE)([ \t]|$)/ {
      if (!unfilled) problem($1 " without an open .nf or .EX")
      unfilled = 0
      next
    }
    /^\.RS([ \t]|$)/ { indents[++depth] = FNR; next }
    /^\.RE([ \t]|$)/ {
      if (!depth) problem(".RE without an open .RS")
      else depth--
      next
    }
    /^\.(SH|SS|TP|PP|P|LP|IP|HP)([ \t]|$)/ {
      if (unfilled) problem($1 " inside the unfilled block opened at line " unfilled)
      if ($1 ~ /^\.S[HS]$/ && depth) problem($1 " inside the .RS opened at line " indents[depth])
    }
    END {
      if (unfilled) problem("the unfilled block opened at line " unfilled " is never closed")
      if (depth) problem("the .RS opened at line " indents[depth] " is never closed")
      exit failed
    }' "$page" || status=1
done
exit $status
