#include "engine/cache/cache_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tensord::cache {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string create_private_file(const std::string& prefix, const std::string& suffix) {
  std::string name = prefix + "XXXXXX" + suffix;
  const int fd = mkstemps(name.data(), static_cast<int>(suffix.size()));
  if (fd < 0) return {};
  close(fd);
  return name;
}

bool write_file_atomically(const std::string& path, std::string_view bytes) {
  const std::string tmp = create_private_file(path + ".tmp-", "");
  if (tmp.empty()) return false;
  bool ok;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    ok = static_cast<bool>(out);
  }
  std::error_code ec;
  if (ok) std::filesystem::rename(tmp, path, ec);
  if (!ok || ec) {
    std::filesystem::remove(tmp, ec);
    return false;
  }
  return true;
}

}  // namespace tensord::cache
