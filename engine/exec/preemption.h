// A run may pause between two of its steps so that the one thread that runs a device's work
// serves other sessions meanwhile (time slicing: scheduler/device_worker.h). The engine asks
// at every step boundary; what "others" are and when it is their turn is the scheduler's
// business, so the engine only knows this interface.
#pragma once

namespace tensord::engine {

class Preemption {
 public:
  virtual ~Preemption() = default;
  // Asked after every step but the last of a run: whether to pause() now. Called once per
  // step, so it must be cheap (an atomic load when nobody else waits).
  virtual bool due() noexcept = 0;
  // Runs other work on this thread and returns when the paused run may go on. The device's
  // current session and settings are the paused run's again when it returns. Work run here
  // may itself run the engine (a nested run), which never pauses.
  virtual void pause() = 0;
};

}  // namespace tensord::engine
