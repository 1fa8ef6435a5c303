#include "engine/backends/cuda/cuda_resources.h"

#include "engine/backends/cuda/cuda_check.h"
#include "engine/ir/error.h"

namespace tensord::cuda {

DeviceGuard::DeviceGuard(int device) {
  check(cudaGetDevice(&previous_), "cudaGetDevice");
  if (previous_ != device) check(cudaSetDevice(device), "cudaSetDevice");
}

DeviceGuard::~DeviceGuard() {
  cudaSetDevice(previous_);
}

CudaSegmentSource::CudaSegmentSource(int device, std::string name)
    : device_(device), description_("CUDA device " + std::to_string(device) + " (" + name + ")") {}

void* CudaSegmentSource::allocate(size_t bytes) {
  DeviceGuard guard(device_);
  void* ptr = nullptr;
  cudaError_t status = cudaMalloc(&ptr, bytes);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky; clear it so the next call does not report it
    return nullptr;
  }
  check(status, "cudaMalloc");
  return ptr;
}

void CudaSegmentSource::release(void* ptr, size_t) {
  DeviceGuard guard(device_);
  check(cudaFree(ptr), "cudaFree");
}

size_t CudaSegmentSource::free_bytes() {
  DeviceGuard guard(device_);
  size_t free = 0, total = 0;
  return cudaMemGetInfo(&free, &total) == cudaSuccess ? free : 0;
}

size_t CudaSegmentSource::total_bytes() {
  DeviceGuard guard(device_);
  size_t free = 0, total = 0;
  return cudaMemGetInfo(&free, &total) == cudaSuccess ? total : 0;
}

CudaStreamEvents::~CudaStreamEvents() {
  for (cudaEvent_t e : idle_) cudaEventDestroy(e);
}

StreamEvents::EventId CudaStreamEvents::record(StreamId stream) {
  DeviceGuard guard(device_);
  cudaEvent_t event = nullptr;
  if (idle_.empty()) {
    check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate");
  } else {
    event = idle_.back();
    idle_.pop_back();
  }
  check(cudaEventRecord(event, reinterpret_cast<cudaStream_t>(stream)), "cudaEventRecord");
  return reinterpret_cast<EventId>(event);
}

bool CudaStreamEvents::query(EventId id) {
  cudaError_t status = cudaEventQuery(reinterpret_cast<cudaEvent_t>(id));
  if (status == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  check(status, "cudaEventQuery");
  return true;
}

void CudaStreamEvents::synchronize(EventId id) {
  check(cudaEventSynchronize(reinterpret_cast<cudaEvent_t>(id)), "cudaEventSynchronize");
}

void CudaStreamEvents::destroy(EventId id) {
  idle_.push_back(reinterpret_cast<cudaEvent_t>(id));
}

Stream::Stream(int device) {
  DeviceGuard guard(device);
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
}

Stream::~Stream() {
  cudaStreamDestroy(stream_);
}

void Stream::synchronize() const {
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

Event::Event(int device) {
  DeviceGuard guard(device);
  check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreate");
}

Event::~Event() {
  cudaEventDestroy(event_);
}

PinnedBuffer::PinnedBuffer(size_t bytes) : size_(bytes) {
  void* p = nullptr;
  check(cudaHostAlloc(&p, bytes, cudaHostAllocDefault), "cudaHostAlloc");
  data_ = static_cast<char*>(p);
}

PinnedBuffer::~PinnedBuffer() {
  cudaFreeHost(data_);
}

Staging::Staging(int device, size_t bytes, size_t count) {
  if (bytes == 0 || count < 2) {
    throw Error(ErrorCode::Internal, "CUDA staging: needs 2 or more buffers of more than 0 bytes");
  }
  for (size_t i = 0; i < count; ++i) {
    buffers.push_back(std::make_unique<PinnedBuffer>(bytes));
    done.push_back(std::make_unique<Event>(device));
  }
}

}  // namespace tensord::cuda
