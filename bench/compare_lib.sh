# shellcheck shell=bash
# bench/compare_lib.sh — what the bench/*compare scripts share, sourced by them: the load average, and a program's
# output split into the log (its RESULT lines, on stdout) and the progress (everything, on stderr).
load() { cut -d' ' -f1-3 /proc/loadavg; }
# A program's output to stderr as it comes, its RESULT lines also to stdout. (Not `tee /dev/stderr`: that
# opens stderr again, and its writes overwrite ours when stderr is a file.)
split_output() { while IFS= read -r line; do printf '%s\n' "$line" >&2; [[ $line != RESULT* ]] || printf '%s\n' "$line"; done; }
