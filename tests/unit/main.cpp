// The Catch2 runner of moac_unit_tests; the tests live in one file per stage.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
