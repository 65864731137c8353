/* fglrun_course.c - fglrun with the course's algorithms registered:
 * "trimmed" (assignment 1), "myprox" (2) and "mine" (4) run by name, with
 * every flag of fglrun (make fglrun; ./build/fglrun --algo trimmed,fedavg --data synthetic). */
#define FGLRUN_NO_MAIN
#include "../examples/fglrun.c"
#include "course.h"

int main(int argc, char **argv) {
    if (a1_register() || a2_register() || a4_register()) {
        fprintf(stderr, "fglrun: registering the course's algorithms failed\n");
        return 1;
    }
    return fglrun_main(argc, argv);
}
