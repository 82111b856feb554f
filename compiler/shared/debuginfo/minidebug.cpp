#include "debuginfo/minidebug.h"

#include <lzma.h>

namespace stap::debuginfo {

bool xz_decompress(const void* data, size_t size, std::vector<char>& out, std::string& why) {
  constexpr uint64_t limit = 256u << 20;
  lzma_stream stream = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&stream, limit, 0) != LZMA_OK) {
    why = ".gnu_debugdata: cannot start the xz decoder";
    return false;
  }
  stream.next_in = static_cast<const uint8_t*>(data);
  stream.avail_in = size;
  out.assign(size * 4 + 4096, 0);
  lzma_ret ret = LZMA_OK;
  while (ret == LZMA_OK) {
    if (stream.total_out == out.size()) {
      if (out.size() >= limit) break;
      out.resize(out.size() * 2);
    }
    stream.next_out = reinterpret_cast<uint8_t*>(out.data()) + stream.total_out;
    stream.avail_out = out.size() - stream.total_out;
    ret = lzma_code(&stream, LZMA_FINISH);
  }
  out.resize(stream.total_out);
  lzma_end(&stream);
  if (ret != LZMA_STREAM_END) {
    why = ".gnu_debugdata: xz stream is corrupt or too large (lzma error " +
          std::to_string(static_cast<int>(ret)) + ")";
    return false;
  }
  return true;
}

}  // namespace stap::debuginfo
