#!/bin/sh
# The course kit's autograder (course/, make -C course grade), on fgl's
# synthetic data:
#  - the reference solutions (course/teacher/solutions) score 100/100;
#  - the untouched skeletons (course/a*.c as checked in) score 0/100;
#  - each mutant of a solution in tests/course_mutants (NAME-WHAT.c replaces
#    the solution NAME.c) loses the checks its "expect:" line names;
#  - each shortcut submission in course/teacher/shortcuts (NAME-WHAT.c, its
#    "expect: aN=0") scores 0 on its assignment;
#  - the student kit (make -C course student-kit) holds no teacher material
#    and no solution, and grades on its own;
#  - fglrun built with the solutions runs the students' algorithms by name;
#  - two students whose folders share a last name (bob/hw, alice/hw) get their own grades, whatever the
#    files' times; a folder with one assignment's file grades it and gives the others 0 with the reason;
#  - a grader's process that crashes (the mutant a1_trimmed-nullupload) still shows its lines before
#    the crash when the output goes to a file.
# Usage: tests/test_course.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sol=course/teacher/solutions
grade() { # label, make arguments...
    label=$1; shift
    nice -n 10 make -s -C course grade "$@" > "$tmp/$label.txt" 2>&1
    sed -n 's/^score: //p' "$tmp/$label.txt"
}
s=$(grade solutions WORK=teacher/solutions OUT="$tmp/build-solutions")
if [ "$s" = "100/100" ]; then echo "ok - course: the reference solutions score 100/100"
else echo "not ok - course: the reference solutions score '$s', not 100/100"; grep -v '^  ok' "$tmp/solutions.txt" | sed 's/^/#   /' | head -20; fi
if git diff --quiet HEAD -- course/a1_trimmed.c course/a2_fedprox.c course/a3_sage_backward.c course/a4_personal.c 2> /dev/null; then
    s=$(grade skeletons OUT="$tmp/build-skeletons")
    if [ "$s" = "0/100" ]; then echo "ok - course: the untouched skeletons score 0/100"
    else echo "not ok - course: the untouched skeletons score '$s', not 0/100"; grep '^  ok' "$tmp/skeletons.txt" | sed 's/^/#   /' | head -10; fi
else
    echo "skip - course: the skeletons in course/ are modified (a student's work?): not graded as skeletons"
fi
# a copy of the solutions with one file replaced, graded on that assignment only
variant() { # file.c replacing its namesake
    name=$(basename "$1" .c); file=${name%%-*}.c; a=$(echo "$file" | cut -c1-2)
    mkdir -p "$tmp/$name"
    cp $sol/*.c "$tmp/$name/" && cp "$1" "$tmp/$name/$file"
    s=$(grade "$name" WORK="$tmp/$name" OUT="$tmp/$name/build" A="$a")
}
for m in tests/course_mutants/*.c; do
    variant "$m"
    expect=$(sed -n 's/^ \* expect: //p' "$m" | sed 's/ *\*\/$//')
    fails=$(sed -n 's/^failing checks://p' "$tmp/$name.txt")
    missing=
    for e in $expect; do
        case " $fails " in *" $e "*) ;; *) missing="$missing $e" ;; esac
    done
    if [ -n "$s" ] && [ -z "$missing" ] && [ -n "$expect" ]; then echo "ok - course: the mutant $name fails $expect ($s)"
    else echo "not ok - course: the mutant $name should fail $expect (failing:${fails:- nothing}; score '$s')"; tail -5 "$tmp/$name.txt" | sed 's/^/#   /'; fi
    case "$expect" in *crash*) # its lines before the crash reached the file (the child's stdout is line-buffered)
        if sed -n '/^  ok .* a1\.1 /,$p' "$tmp/$name.txt" | grep -q '^  CRASH'; then
            echo "ok - course: the mutant $name's checks before its crash are in the output file"
        else echo "not ok - course: the mutant $name's lines before its crash are lost"; sed 's/^/#   /' "$tmp/$name.txt" | head -12; fi ;;
    esac
done
for m in course/teacher/shortcuts/*.c; do
    variant "$m"
    n=$(echo "$a" | cut -c2)
    expect=$(sed -n 's/^ \* expect: //p' "$m" | sed 's/ *\*\/$//')
    got=$(sed -n "s/^  assignment $n: //p" "$tmp/$name.txt")
    if [ "$expect" = "$a=0" ] && [ -n "$got" ] && [ "${got%%/*}" = 0 ] && [ "$s" = "$got" ]; then
        echo "ok - course: the shortcut $name scores $got on assignment $n" \
             "($(grep -m1 '^  FAIL' "$tmp/$name.txt" | cut -c15-80))"
    else
        echo "not ok - course: the shortcut $name should score 0 on assignment $n (expect '$expect', got '$got'," \
             "score '$s')"
        grep -v '^  ok' "$tmp/$name.txt" | tail -5 | sed 's/^/#   /'
    fi
done
# the student kit: no teacher/, no file of a solution; it builds and grades on its own
if nice -n 10 make -s -C course student-kit > "$tmp/kit.txt" 2>&1 && mkdir "$tmp/kit" &&
   tar xzf course/build/fgl-course-student.tar.gz -C "$tmp/kit"; then
    leak=$(cd "$tmp/kit" && find . -type f | grep -e teacher -e solution -e shortcut)
    for f in $(cd "$tmp/kit" && find . -type f); do
        for t in course/teacher/solutions/*.c course/teacher/shortcuts/*.c; do
            cmp -s "$tmp/kit/$f" "$t" && leak="$leak $f"
        done
    done
    leak="$leak$(grep -rl 'Not for students\|reference solution' "$tmp/kit" | sed "s#$tmp/kit/# #")"
    files=$(tar tzf course/build/fgl-course-student.tar.gz | grep -c '[^/]$')
    if [ -z "$leak" ]; then echo "ok - course: the student kit holds no teacher material ($files files)"
    else echo "not ok - course: the student kit holds teacher material:$leak"; fi
    # the library object built above, carried in (newer than the kit's sources: not compiled again)
    mkdir -p "$tmp/kit/fgl-course/course/build" && cp -p course/build/flags course/build/fgl.o "$tmp/kit/fgl-course/course/build/"
    cp $sol/a3_sage_backward.c "$tmp/kit/fgl-course/course/"
    if nice -n 10 make -s -C "$tmp/kit/fgl-course/course" grade A="a1 a3" > "$tmp/kitgrade.txt" 2>&1 &&
       grep -q '^score: 30/50$' "$tmp/kitgrade.txt"; then
        echo "ok - course: the student kit grades on its own (a solved a3 and a1's skeleton: 30/50)"
    else
        echo "not ok - course: the student kit does not grade on its own"; tail -5 "$tmp/kitgrade.txt" | sed 's/^/#   /'
    fi
else
    echo "not ok - course: make -C course student-kit"; sed 's/^/#   /' "$tmp/kit.txt" | head -5
fi
# the students' algorithms by name in fglrun
if nice -n 10 make -s -C course fglrun WORK=teacher/solutions OUT="$tmp/build-solutions" > "$tmp/fglrun.txt" 2>&1 &&
   "$tmp/build-solutions/fglrun" --algo trimmed,myprox,mine --data synthetic --clients 5 --rounds 3 --json --quiet > "$tmp/run.json" 2>&1 &&
   grep -q '"algo": "trimmed"' "$tmp/run.json" && grep -q '"algo": "myprox"' "$tmp/run.json" && grep -q '"algo": "mine"' "$tmp/run.json"; then
    echo "ok - course: fglrun runs trimmed, myprox and mine by name"
else
    echo "not ok - course: fglrun runs the students' algorithms by name"; sed 's/^/#   /' "$tmp/fglrun.txt" "$tmp/run.json" 2> /dev/null | head -5
fi
# two students, folders of the same last name: Bob's a1 right, Alice's wrong and older (by its time) than
# Bob's objects; each graded in the build folder the Makefile names from the whole path (course/build/hw-CRC)
mkdir -p "$tmp/s/bob/hw" "$tmp/s/alice/hw"
cp $sol/a1_trimmed.c "$tmp/s/bob/hw/"
cp tests/course_mutants/a1_trimmed-weighted.c "$tmp/s/alice/hw/a1_trimmed.c" && touch -t 200001010000 "$tmp/s/alice/hw/a1_trimmed.c"
# and Alice's a2 calls a function that does not exist (it compiles, with a warning, and does not link), her a3
# does not compile: each scores 0 with the reason, the rest is graded
sed 's/fgl_received(/fgl_recieved(/' $sol/a2_fedprox.c > "$tmp/s/alice/hw/a2_fedprox.c"
printf 'int sage_backward(void) { return }\n' > "$tmp/s/alice/hw/a3_sage_backward.c"
hw_out() { echo "course/build/hw-$(printf '%s' "$(cd "$1" && pwd -P)" | cksum | cut -d' ' -f1)"; }
bob=$(grade bob WORK="$tmp/s/bob/hw")
alice=$(grade alice WORK="$tmp/s/alice/hw" A="a1 a2 a3")
bob2=$(grade bob2 WORK="$tmp/s/bob/hw" A=a1)
if [ "$bob" = "20/100" ] && [ "$alice" = "0/70" ] && [ "$bob2" = "20/20" ] && grep -q "^failing checks: a1.1 a1.2 a1.3 " "$tmp/alice.txt"; then
    echo "ok - course: bob/hw and alice/hw are graded apart (Bob $bob, Alice $alice, Bob again $bob2)"
else echo "not ok - course: bob/hw and alice/hw mixed up (Bob '$bob', want 20/100; Alice '$alice', want 0/70 with a1.1 failed; Bob again '$bob2', want 20/20)"
    tail -4 "$tmp/alice.txt" | sed 's/^/#   /'; fi
if grep -q 'a2_fedprox.c does not link .*assignment 2 scores 0' "$tmp/alice.txt" && grep -q "undefined reference to .fgl_recieved" "$tmp/alice.txt" &&
   grep -q 'a3_sage_backward.c does not compile .*assignment 3 scores 0' "$tmp/alice.txt"; then
    echo "ok - course: a file that does not link, or does not compile, scores 0 with the reason; the others are graded"
else echo "not ok - course: a file that does not link or compile (want the reasons for a2 and a3)"; grep -v '^  ok' "$tmp/alice.txt" | head -20 | sed 's/^/#   /'; fi
# Bob's folder with only a1's file: a2-a4 score 0, each saying the file is not there
n=$(grep -c "a[234]_[a-z_]*\.c is not in the folder graded: assignment [234] scores 0" "$tmp/bob.txt")
if [ "$n" = 3 ] && grep -q '^  assignment 1: 20/20' "$tmp/bob.txt"; then
    echo "ok - course: a folder with a1's file only grades a1 (20/20) and gives a2-a4 0, saying why"
else echo "not ok - course: a folder with a1's file only (want a1 20/20 and 3 'not in the folder' lines, got $n)"
    grep -v '^  ok' "$tmp/bob.txt" | head -12 | sed 's/^/#   /'; fi
# the same folder, its file replaced by an older one with other text: the content, not the time, decides
cp -p "$tmp/s/alice/hw/a1_trimmed.c" "$tmp/s/bob/hw/a1_trimmed.c"
bob3=$(grade bob3 WORK="$tmp/s/bob/hw" A=a1)
if [ "$bob3" = "0/20" ]; then echo "ok - course: a file replaced by an older one is compiled again (0/20)"
else echo "not ok - course: a file replaced by an older one graded '$bob3', not 0/20 (its old object kept?)"; fi
rm -rf "$(hw_out "$tmp/s/bob/hw")" "$(hw_out "$tmp/s/alice/hw")"
