#!/usr/bin/env bash
# scripts/check_sizes.sh: the size limits of docs/design.md, so that a file or a function too long
# to read at once fails CI: no tracked C++/CUDA source over 450 lines (tests included), no function
# over 80 lines outside tests, fuzz targets and generated code. An exception is a row of the table
# under "## Exceptions to the size limits" in docs/design.md: | `path` | `function` or file | why |.
# Functions are found by Universal Ctags (Debian's universal-ctags, installed by scripts/deps.sh).
# Prints each offender and exits 1; 0 when every file and function is within its limit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
max_file_lines=450
max_function_lines=80

ctags=$(command -v ctags-universal || command -v ctags || true)
if [[ -z $ctags ]] || ! "$ctags" --version 2>/dev/null | grep -q Universal; then
  echo "check_sizes: Universal Ctags is missing (scripts/deps.sh installs universal-ctags)" >&2
  exit 2
fi

# "path name" of every exception (name is "file" for a whole file).
exceptions=$(sed -n '/^## Exceptions to the size limits/,/^## /p' docs/design.md |
  grep -o '^| `[^`]*` | `\?[A-Za-z0-9_:~]*`\? |' | tr -d '|`' | awk '{print $1, $2}' || true)
excepted() { grep -qxF "$1 $2" <<<"$exceptions"; }

bad=0
while read -r lines path; do
  [[ $path == total ]] && continue
  if ((lines > max_file_lines)) && ! excepted "$path" file; then
    echo "$path: $lines lines (at most $max_file_lines; split it by concept)"
    bad=1
  fi
done < <(git ls-files '*.h' '*.cpp' '*.cu' '*.cuh' | xargs wc -l)

mapfile -t sources < <(git ls-files 'games/*' 'kernels/*' 'engine/*' 'agents/*' 'arena/*' 'base/*' |
  grep -E '\.(h|cpp|cu|cuh)$')
while read -r end start name path; do
  lines=$((end - start + 1))
  if ((lines > max_function_lines)) && ! excepted "$path" "$name"; then
    echo "$path:$start: $name is $lines lines (at most $max_function_lines)"
    bad=1
  fi
done < <("$ctags" --languages=C++ --langmap=C++:+.cu.cuh --kinds-C++=f --fields=+ne -x \
  --_xformat="%{end} %{line} %N %F" "${sources[@]}")

if ((bad)); then
  echo "check_sizes: limits exceeded (exceptions, with why: docs/design.md)" >&2
  exit 1
fi
echo "check_sizes: every source within $max_file_lines lines and every function within $max_function_lines"
