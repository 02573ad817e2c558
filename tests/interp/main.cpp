// The Catch2 runner of moac_interp_tests: the reference interpreter checked on small programs with
// hand-computed results, on the dsl-examples against independent loops, and on its error paths.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
