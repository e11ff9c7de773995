/* The second half of test-soft.c's programs, as a binary of its own
 * (see the comment above its main()). */
#define SOFT_PART 2
#include "test-soft.c"
