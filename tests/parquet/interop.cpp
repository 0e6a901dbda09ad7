// lfbloom's side of the Parquet interop test (interop.py): the same command line as the
// parquet-mr program in java/.
//   write NUM_BYTES KEYS OUT   a split-block filter of NUM_BYTES with every key, its bitset to OUT
//   check BITSET KEYS          prints how many keys the bitset (a Parquet filter's) may contain
// KEYS holds one key per line as lowercase hex ("" is the empty key). Exit 2 on bad input.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <boost/algorithm/hex.hpp>

#include "lfbloom/lfbloom.hpp"

namespace {

std::vector<std::string> read_keys(const char* path) {
    std::ifstream in(path);
    if (!in) throw lfbloom::error(lfbloom::errc::io, std::string("cannot read ") + path);
    std::vector<std::string> keys;
    for (std::string line; std::getline(in, line);) keys.push_back(boost::algorithm::unhex(line));
    return keys;
}

std::vector<lfbloom::key_view> views(const std::vector<std::string>& keys) {
    std::vector<lfbloom::key_view> out;
    for (const auto& k : keys) out.push_back(lfbloom::as_key(k));
    return out;
}

}  // namespace

int main(int argc, char** argv) try {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "write" && argc == 5) {
        const auto keys = read_keys(argv[3]);
        auto filter = lfbloom::split_block_bloom_filter::with_geometry(std::stoull(argv[2]) * 8, 8);
        filter.add_many(views(keys));
        std::vector<std::byte> bitset;
        lfbloom::save_parquet_bitset(filter, lfbloom::vector_sink(bitset));
        std::ofstream out(argv[4], std::ios::binary);
        out.write(reinterpret_cast<const char*>(bitset.data()), static_cast<std::streamsize>(bitset.size()));
        if (!out.flush()) throw lfbloom::error(lfbloom::errc::io, std::string("cannot write ") + argv[4]);
        return 0;
    }
    if (command == "check" && argc == 4) {
        std::ifstream in(argv[2], std::ios::binary);
        const std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::span<const std::byte> data = std::as_bytes(std::span(raw));
        const auto filter = lfbloom::load_parquet_bitset(lfbloom::span_source(data), raw.size(), 0, raw.size());
        const auto keys = read_keys(argv[3]);
        std::cout << filter.contains_many(views(keys)) << '\n';
        return 0;
    }
    std::cerr << "usage: lfbloom-parquet-interop write NUM_BYTES KEYS OUT | check BITSET KEYS\n";
    return 2;
} catch (const std::exception& e) {
    std::cerr << "lfbloom-parquet-interop: " << e.what() << '\n';
    return 2;
}
