// The files of procfs("PATH").read/.write probes (ir::ProcfsSpec), served
// as FIFOs under /var/tmp/systemtap-$USER/MODULE/ as stapbpf serves them
// (a BPF engine cannot add /proc entries), and procfs("__stdin").write,
// the script's standard input (tapsets/input.stp).  The bodies run in the
// session's event loop (session_run.cpp); this class owns the files:
//
//   - a write file's FIFO is held open for reading and writing by the
//     runtime, so writers never wait and the FIFO never reports a hang-up;
//     each piece a writer's write() delivers runs the write probes;
//   - a read file has a thread blocked in open(O_WRONLY) until a reader
//     opens the FIFO; it then wakes the loop, which runs the read probe and
//     hands back the text; the thread writes it, closes (the reader sees
//     the end), and waits for that reader to go before it serves the next;
//   - standard input is read as it comes, one byte a run as staprun sends
//     it, with a terminal put in non-canonical mode without echo meanwhile.
//
// The directory holds a lock while the session runs (flock, released even
// when stap is killed), so a second session of the same module is refused
// and a killed session's leftovers are replaced.  Every FIFO and directory
// made is removed by the destructor, on every way out of the session.
#pragma once

#include <sys/types.h>
#include <termios.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ir/ir.h"

namespace stap {

class ProcfsFiles {
 public:
  // The files of `module`'s procfs probes, under a directory named
  // `module_name`.
  ProcfsFiles(const ir::Module& module, std::string module_name, int verbose);
  ~ProcfsFiles();
  ProcfsFiles(const ProcfsFiles&) = delete;
  ProcfsFiles& operator=(const ProcfsFiles&) = delete;

  bool empty() const { return files_.empty(); }
  // Whether a probe reads standard input (procfs("__stdin")).
  bool reads_stdin() const {
    for (const auto& f : files_)
      if (f->is_stdin) return true;
    return false;
  }
  // Makes the directory and the FIFOs, starts the readers' threads and
  // takes standard input; false with `error` set.
  bool start(std::string& error);

  size_t size() const { return files_.size(); }
  // What the loop waits on for file i: readable when a write file has
  // data, or a read file has a reader waiting.  -1 for standard input that
  // cannot be waited on (a regular file): always_ready() then.
  int fd(size_t i) const { return files_[i]->wait_fd; }
  bool always_ready(size_t i) const { return files_[i]->always_ready && !files_[i]->at_end; }
  bool is_write(size_t i) const { return files_[i]->write; }
  // The probes of file i (module indexes): one read probe, or write probes.
  const std::vector<size_t>& probes(size_t i) const { return files_[i]->probes; }
  const std::string& fifo_path(size_t i) const { return files_[i]->fifo; }

  // Write file i: the pieces written since the last call, each at most
  // `piece` bytes (one byte for standard input); sets at_end(i) at the end
  // of standard input.
  std::vector<std::string> take_written(size_t i, size_t piece);
  bool at_end(size_t i) const { return files_[i]->at_end; }
  // Read file i: whether a reader waits for text (clears the wake-up),
  // and the text to give it.
  bool reader_waiting(size_t i);
  void serve(size_t i, std::string text);

 private:
  struct File {
    std::string name;  // the probe's PATH
    std::string fifo;  // its FIFO, absolute
    bool write = false;
    bool is_stdin = false;
    mode_t mode = 0;
    std::vector<size_t> probes;
    int wait_fd = -1;  // write: the FIFO, read O_RDWR; read: an eventfd
    bool always_ready = false;
    bool at_end = false;
    // A read file's thread and its hand-over of the text.
    std::thread server;
    std::mutex mutex;
    std::condition_variable handed;
    bool waiting = false;    // the thread has a reader and waits for text
    bool have_text = false;  // the loop handed it
    std::string text;
  };

  bool make_directory(std::string& error);
  bool make_fifo(File& f, std::string& error);
  bool take_stdin(File& f, std::string& error);
  void serve_readers(File& f);
  void stop_servers();
  void remove_all();
  void start_reaper();
  void note_made(char kind, const std::string& path);

  std::vector<std::unique_ptr<File>> files_;
  std::string module_name_;
  int verbose_ = 0;
  std::string root_;                    // /var/tmp/systemtap-$USER/MODULE
  std::vector<std::string> made_dirs_;  // to remove, innermost last
  std::vector<std::string> made_fifos_;
  int lock_fd_ = -1;
  int reaper_fd_ = -1;  // the session's end of start_reaper()'s socket pair
  std::atomic<bool> stopping_{false};
  bool terminal_changed_ = false;
  termios saved_terminal_{};
};

}  // namespace stap
