#define BOOST_TEST_MODULE lfbloom_core
#include <boost/test/unit_test.hpp>
