// The Catch2 runner of moac_property_tests: interpreter(AST) against DNF evaluator(DNF), and the
// generator's own tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
