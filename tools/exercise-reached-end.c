/* generated from chapters/26-exercises.nw; edit the book, not this file */
/* tests/reached_end.c of an exercise's workspace: every test reaches its end.
   The tests are linked with -Wl,--wrap=criterion_internal_test_main, so a
   test's body runs through body_then_end, whose one assertion after the body
   is counted only if the body returned.  The grader fails a PASSED test that
   counted no assertion: its process exited before the test's end. */
#include <criterion/criterion.h>

void __real_criterion_internal_test_main(void (*fn)(void));
void __wrap_criterion_internal_test_main(void (*fn)(void));

static void (*graded_body)(void);

static void body_then_end(void)
{
    graded_body();
    cr_assert(1, "the test reached its end");
}

void __wrap_criterion_internal_test_main(void (*fn)(void))
{
    graded_body = fn;
    __real_criterion_internal_test_main(criterion_current_test->data->param_ ? fn : body_then_end);
}
