# generated from chapters/26-exercises.nw; edit the book, not this file
# tools/exercise-hints.awk: print each exercise's hints after its statement
# (the teacher's edition; the exercises appendix).
function tex(s,   n, part, i, out) {
    n = split(s, part, "$")
    for (i = 1; i <= n; i++)
        out = out (i % 2 ? text(part[i]) : "$" part[i] "$")
    return out
}
function text(s) {
    gsub(/\\/, "\001", s)
    gsub(/[{}&#_%]/, "\\\\&", s)
    gsub(/\001/, "\\textbackslash{}", s)
    gsub(/\^/, "\\^{}", s)
    gsub(/~/, "\\~{}", s)
    return s
}
function print_hints(   i) {
    print "\\begin{quote}\\small"
    print "\\emph{Hints, in the teacher's edition only;"
    print "[[make hint EX=" id " N=1]] prints the first.}"
    print "\\begin{enumerate}"
    for (i = 1; i <= n; i++)
        print "\\item " hint[i]
    print "\\end{enumerate}"
    print "\\end{quote}"
    waiting = 0
}
/^%exercise / {
    match($0, /id=[A-Za-z0-9-]+/)
    id = substr($0, RSTART + 3, RLENGTH - 3); in_marker = 1; n = 0
    print; next
}
in_marker && /^%hint / { hint[++n] = tex(substr($0, 7)) }
in_marker && /^%/ { print; next }
in_marker { in_marker = 0; waiting = n > 0 }
waiting && /^[ \t]*$/ { print_hints() }
{ print }
END { if (waiting) print_hints() }
