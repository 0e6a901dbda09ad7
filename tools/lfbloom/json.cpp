// Boost.JSON's implementation, compiled once for the command (header-only use: Debian ships no
// libboost_json for 1.81 without another package). Every other file includes <boost/json.hpp>.
#include <boost/json/src.hpp>
