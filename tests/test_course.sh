#!/bin/sh
# The course kit's autograder (course/, make -C course grade), on fgl's
# synthetic data:
#  - the reference solutions (course/solutions) score 100/100;
#  - the untouched skeletons (course/a*.c as checked in) score 0/100;
#  - each mutant of a solution in tests/course_mutants (NAME-WHAT.c replaces
#    course/solutions/NAME.c) loses the checks its "expect:" line names;
#  - fglrun built with the solutions runs the students' algorithms by name.
# Usage: tests/test_course.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
top=$(pwd)
grade() { # label, make arguments...
    label=$1; shift
    nice -n 10 make -s -C course grade "$@" > "$tmp/$label.txt" 2>&1
    sed -n 's/^score: //p' "$tmp/$label.txt"
}
s=$(grade solutions WORK=solutions OUT="$tmp/build-solutions")
if [ "$s" = "100/100" ]; then echo "ok - course: the reference solutions score 100/100"
else echo "not ok - course: the reference solutions score '$s', not 100/100"; grep -v '^  ok' "$tmp/solutions.txt" | sed 's/^/#   /' | head -20; fi
if git diff --quiet HEAD -- course/a1_trimmed.c course/a2_fedprox.c course/a3_sage_backward.c course/a4_personal.c 2> /dev/null; then
    s=$(grade skeletons OUT="$tmp/build-skeletons")
    if [ "$s" = "0/100" ]; then echo "ok - course: the untouched skeletons score 0/100"
    else echo "not ok - course: the untouched skeletons score '$s', not 0/100"; grep '^  ok' "$tmp/skeletons.txt" | sed 's/^/#   /' | head -10; fi
else
    echo "skip - course: the skeletons in course/ are modified (a student's work?): not graded as skeletons"
fi
for m in tests/course_mutants/*.c; do
    name=$(basename "$m" .c); file=${name%%-*}.c; a=$(echo "$file" | cut -c1-2)
    expect=$(sed -n 's/^ \* expect: //p' "$m" | sed 's/ *\*\/$//')
    mkdir -p "$tmp/$name"
    cp course/solutions/*.c "$tmp/$name/" && cp "$m" "$tmp/$name/$file"
    s=$(grade "$name" WORK="$tmp/$name" OUT="$tmp/$name/build" A="$a")
    fails=$(sed -n 's/^failing checks://p' "$tmp/$name.txt")
    missing=
    for e in $expect; do
        case " $fails " in *" $e "*) ;; *) missing="$missing $e" ;; esac
    done
    if [ -n "$s" ] && [ -z "$missing" ] && [ -n "$expect" ]; then echo "ok - course: the mutant $name fails $expect ($s)"
    else echo "not ok - course: the mutant $name should fail $expect (failing:${fails:- nothing}; score '$s')"; tail -5 "$tmp/$name.txt" | sed 's/^/#   /'; fi
done
# the students' algorithms by name in fglrun
if nice -n 10 make -s -C course fglrun WORK=solutions OUT="$tmp/build-solutions" > "$tmp/fglrun.txt" 2>&1 &&
   "$tmp/build-solutions/fglrun" --algo trimmed,myprox,mine --data synthetic --clients 5 --rounds 3 --json --quiet > "$tmp/run.json" 2>&1 &&
   grep -q '"algo": "trimmed"' "$tmp/run.json" && grep -q '"algo": "myprox"' "$tmp/run.json" && grep -q '"algo": "mine"' "$tmp/run.json"; then
    echo "ok - course: fglrun runs trimmed, myprox and mine by name"
else
    echo "not ok - course: fglrun runs the students' algorithms by name"; sed 's/^/#   /' "$tmp/fglrun.txt" "$tmp/run.json" 2> /dev/null | head -5
fi
