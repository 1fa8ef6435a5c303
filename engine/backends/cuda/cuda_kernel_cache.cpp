#include "engine/backends/cuda/cuda_kernel_cache.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/nvrtc_compiler.h"
#include "engine/cache/cache_file.h"
#include "engine/codegen/emitter.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

namespace fs = std::filesystem;

// The seal in front of a CUBIN on disk: its size and hash, so a torn write is never loaded.
std::string seal_of(const std::string& image) {
  return "tensord-cubin " + std::to_string(image.size()) + " " +
         codegen::hex64(codegen::text_hash(image)) + "\n";
}

// A second name `to` for the file `from`, put in place by a rename as every entry is, so a
// reader never sees a half-made name. False when the filesystem refuses links.
bool link_atomically(const std::string& from, const std::string& to) {
  const std::string tmp = cache::create_private_file(to + ".link-", ".tmp");
  if (tmp.empty()) return false;
  unlink(tmp.c_str());  // the name was reserved; link() wants it free
  if (link(from.c_str(), tmp.c_str()) != 0) return false;
  if (rename(tmp.c_str(), to.c_str()) != 0) {
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

uint64_t nanoseconds_since(std::chrono::steady_clock::time_point start) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count());
}

}  // namespace

struct CudaKernelCache::Library {
  cudaLibrary_t handle = nullptr;
  std::unordered_map<std::string, cudaKernel_t> kernels;
};

CudaKernelCache::CudaKernelCache(CudaKernelCacheOptions options) : options_(std::move(options)) {
  identity_ = "sm_" + std::to_string(options_.arch) + " nvrtc " + std::to_string(nvrtc_version());
  for (const std::string& o : options_.options) identity_ += " " + o;
  if (!options_.dir.empty()) {
    options_.dir += "/cuda";
    std::error_code ec;
    fs::create_directories(options_.dir, ec);
    if (ec) {
      throw Error(ErrorCode::Internal,
                  "cannot create the kernel cache directory " + options_.dir + ": " + ec.message());
    }
  }
}

CudaKernelCache::~CudaKernelCache() {
  for (Library* lib : libraries_) {
    cudaLibraryUnload(lib->handle);
    delete lib;
  }
}

std::string CudaKernelCache::key_of(const std::string& source) const {
  return codegen::hex64(codegen::text_hash(source)) +
         codegen::hex64(codegen::text_hash(identity_ + "\n" + source));
}

std::string CudaKernelCache::path_of(const std::string& key) const {
  return options_.dir.empty() ? "" : options_.dir + "/" + key + ".cubin";
}

std::string CudaKernelCache::read_image(const std::string& path, bool& corrupt) {
  corrupt = false;
  if (path.empty() || access(path.c_str(), F_OK) != 0) return "";
  const std::string file = cache::read_file(path);
  const size_t eol = file.find('\n');
  if (eol != std::string::npos && file.substr(0, eol + 1) == seal_of(file.substr(eol + 1))) {
    return file.substr(eol + 1);
  }
  corrupt = true;
  return "";
}

std::string CudaKernelCache::compile(const std::string& key, const std::string& source,
                                     const std::string& path) const {
  NvrtcRequest request;
  request.source = source;
  request.name = "tensord_" + key.substr(0, 16) + ".cu";
  request.arch = options_.arch;
  request.cubin = true;
  request.options = options_.options;
  std::string image = nvrtc_compile(request).image;
  if (!path.empty()) cache::write_file_atomically(path, seal_of(image) + image);
  return image;
}

CudaKernelCache::Library& CudaKernelCache::library_for(const std::string& source) {
  const std::string key = key_of(source);
  if (auto it = loaded_.find(key); it != loaded_.end()) {
    ++stats_.memory_hits;
    return *it->second;
  }
  if (auto it = images_.find(key); it != images_.end()) {  // compiled together, counted then
    const std::shared_ptr<const std::string> image = it->second;
    images_.erase(it);
    return library_of(key, *image);
  }
  const std::string path = path_of(key);
  bool corrupt = false;
  std::string image = read_image(path, corrupt);
  if (corrupt) ++stats_.corrupt;
  if (!image.empty()) {
    ++stats_.disk_hits;
  } else {
    const auto start = std::chrono::steady_clock::now();
    image = compile(key, source, path);
    stats_.compile_ns += nanoseconds_since(start);
    ++stats_.compiles;
    ++stats_.misses;
  }
  return library_of(key, image);
}

CudaKernelCache::Library& CudaKernelCache::library_of(const std::string& key,
                                                      const std::string& image) {
  // Members of one program (in memory, or hard links on disk) have the same bytes: one load.
  const std::string id = codegen::hex64(codegen::text_hash(image)) + std::to_string(image.size());
  if (auto it = by_image_.find(id); it != by_image_.end()) {
    loaded_.emplace(key, it->second);
    return *it->second;
  }
  auto lib = std::make_unique<Library>();
  check(cudaLibraryLoadData(&lib->handle, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
        "cudaLibraryLoadData (a compiled kernel)");
  libraries_.push_back(lib.get());
  Library* raw = lib.release();
  loaded_.emplace(key, raw);
  by_image_.emplace(id, raw);
  return *raw;
}

std::vector<cudaKernel_t> CudaKernelCache::load(const std::string& source,
                                                std::span<const std::string> names) {
  std::lock_guard lock(mutex_);
  Library& lib = library_for(source);
  std::vector<cudaKernel_t> out;
  out.reserve(names.size());
  for (const std::string& name : names) {
    auto it = lib.kernels.find(name);
    if (it == lib.kernels.end()) {
      cudaKernel_t k = nullptr;
      const cudaError_t status = cudaLibraryGetKernel(&k, lib.handle, name.c_str());
      if (status != cudaSuccess) {
        throw Error(ErrorCode::Internal,
                    "compiled CUDA source has no kernel " + name + ": " + error_text(status));
      }
      it = lib.kernels.emplace(name, k).first;
    }
    out.push_back(it->second);
  }
  return out;
}

cudaKernel_t CudaKernelCache::kernel(const std::string& source, const std::string& name) {
  const std::string names[] = {name};
  return load(source, names).front();
}

bool CudaKernelCache::has(const std::string& source) const {
  const std::string key = key_of(source);
  std::lock_guard lock(mutex_);
  return loaded_.count(key) > 0;
}

// The same lookup as library_for, without the load; the compile runs outside the lock. Two
// threads given the same source may both compile it: the atomic rename keeps the file whole.
bool CudaKernelCache::precompile(const std::string& source) {
  const std::string key = key_of(source);
  const std::string path = path_of(key);
  {
    std::lock_guard lock(mutex_);
    if (loaded_.count(key) > 0) {
      ++stats_.memory_hits;
      return false;
    }
  }
  bool corrupt = false;
  const bool found = !read_image(path, corrupt).empty();
  if (found) {
    std::lock_guard lock(mutex_);
    ++stats_.disk_hits;
    return false;
  }
  const auto start = std::chrono::steady_clock::now();
  compile(key, source, path);
  const uint64_t ns = nanoseconds_since(start);
  std::lock_guard lock(mutex_);
  if (corrupt) ++stats_.corrupt;
  stats_.compile_ns += ns;
  ++stats_.compiles;
  ++stats_.misses;
  return true;
}

void CudaKernelCache::compile_together(const std::string& combined,
                                       std::span<const std::string> members) {
  std::vector<std::string> keys;
  for (const std::string& m : members) {
    std::string key = key_of(m);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
  }
  if (keys.empty()) return;
  const auto start = std::chrono::steady_clock::now();
  const auto image = std::make_shared<const std::string>(compile(key_of(combined), combined, ""));
  const uint64_t ns = nanoseconds_since(start);
  if (!options_.dir.empty()) {
    // One sealed file under a private name, linked under each member's name, then the private
    // name dropped. Not linked from a member's public name: another daemon may replace that
    // one meanwhile (with that member's CUBIN alone, which lacks the others' kernels).
    const std::string sealed = seal_of(*image) + *image;
    const std::string own = cache::create_private_file(options_.dir + "/batch-", ".tmp");
    bool written = false;
    if (!own.empty()) {
      std::ofstream out(own, std::ios::binary | std::ios::trunc);
      written = static_cast<bool>(
                    out.write(sealed.data(), static_cast<std::streamsize>(sealed.size()))) &&
                static_cast<bool>(out.flush());
    }
    for (const std::string& key : keys) {
      const std::string path = path_of(key);
      if (!written || !link_atomically(own, path)) cache::write_file_atomically(path, sealed);
    }
    if (!own.empty()) unlink(own.c_str());
  }
  std::lock_guard lock(mutex_);
  for (const std::string& key : keys) {
    if (loaded_.count(key) == 0) images_[key] = image;
  }
  stats_.compile_ns += ns;
  ++stats_.compiles;
  stats_.misses += keys.size();
}

bool CudaKernelCache::holds(const std::string& source) {
  const std::string key = key_of(source);
  {
    std::lock_guard lock(mutex_);
    if (loaded_.count(key) > 0 || images_.count(key) > 0) return true;
  }
  // The seal's size against the file's, without reading the CUBIN (load() reads it and checks
  // its hash: a file torn to the right size is rebuilt there). A plan on a warm cache asks this
  // of every kernel before loading them.
  const std::string path = path_of(key);
  std::ifstream in(path, std::ios::binary);
  if (path.empty() || !in) return false;
  std::string seal;
  std::getline(in, seal);
  std::error_code ec;
  const uint64_t bytes = fs::file_size(path, ec);
  unsigned long long size = 0;
  const bool whole = !ec && std::sscanf(seal.c_str(), "tensord-cubin %llu ", &size) == 1 &&
                     bytes == seal.size() + 1 + size;
  if (!whole) {
    std::lock_guard lock(mutex_);
    ++stats_.corrupt;
  }
  return whole;
}

std::string CudaKernelCache::stored_image(const std::string& source) {
  const std::string key = key_of(source);
  {
    std::lock_guard lock(mutex_);
    if (auto it = images_.find(key); it != images_.end()) return *it->second;
  }
  bool corrupt = false;
  return read_image(path_of(key), corrupt);
}

cache::KernelCacheStats CudaKernelCache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void launch(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared_bytes,
            cudaStream_t stream, const char* what) {
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return;
  check(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, args, shared_bytes,
                         stream),
        what);
}

void launch_programmatic(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                         size_t shared_bytes, cudaStream_t stream, const char* what) {
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  check(cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(kernel), args), what);
}

}  // namespace tensord::cuda
