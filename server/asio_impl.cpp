// The one translation unit that compiles Asio's and Beast's implementations
// (BOOST_ASIO_SEPARATE_COMPILATION / BOOST_BEAST_SEPARATE_COMPILATION are set for every
// server target), so the headers stay declarations-only everywhere else and builds stay
// fast on small machines.
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
