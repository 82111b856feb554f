#include "loader/attach/procfs_files.h"

#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace stap {

namespace {

std::string user_name() {
  if (const passwd* p = getpwuid(geteuid())) return p->pw_name;
  return std::to_string(geteuid());
}

// mkdir that accepts an existing directory; true when `path` is one now.
// `made` says whether this call created it.
bool ensure_dir(const std::string& path, bool& made) {
  made = mkdir(path.c_str(), 0755) == 0;
  if (made) return true;
  struct stat st;
  return errno == EEXIST && stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Whether epoll can wait on fd (it cannot on regular files and /dev/null).
bool pollable(int fd) {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) return false;
  epoll_event ev{};
  ev.events = EPOLLIN;
  bool ok = epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0;
  close(ep);
  return ok;
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

ProcfsFiles::ProcfsFiles(const ir::Module& module, std::string module_name, int verbose)
    : module_name_(std::move(module_name)), verbose_(verbose) {
  for (size_t i = 0; i < module.probes.size(); ++i) {
    const ir::ProcfsSpec* spec = module.probes[i].as<ir::ProcfsSpec>();
    if (!spec) continue;
    File* file = nullptr;
    for (auto& f : files_)
      if (f->name == spec->path) file = f.get();
    if (!file) {
      files_.push_back(std::make_unique<File>());
      file = files_.back().get();
      file->name = spec->path;
      file->write = spec->write;
      file->is_stdin = spec->is_stdin();
      // stap's modes: r--r--r-- or -w--w--w-, less the probe's umask.
      file->mode = static_cast<mode_t>((spec->write ? 0222 : 0444) & ~spec->umask);
    }
    file->probes.push_back(i);
  }
}

ProcfsFiles::~ProcfsFiles() {
  stop_servers();
  for (auto& f : files_)
    if (f->wait_fd >= 0 && !f->is_stdin) close(f->wait_fd);
  remove_all();
  if (terminal_changed_) tcsetattr(STDIN_FILENO, TCSANOW, &saved_terminal_);
}

bool ProcfsFiles::start(std::string& error) {
  for (auto& f : files_) {
    bool ok = f->is_stdin ? take_stdin(*f, error)
                          : (root_.empty() && !make_directory(error) ? false : make_fifo(*f, error));
    if (!ok) return false;
    if (verbose_ && !f->is_stdin)
      std::fprintf(stderr, "Pass 5: procfs(\"%s\").%s served at %s (mode %03o)\n", f->name.c_str(),
                   f->write ? "write" : "read", f->fifo.c_str(), unsigned(f->mode));
  }
  return true;
}

// A session killed with SIGKILL cannot remove its FIFOs, so a child
// process does it for it.  It holds nothing but its end of a socket pair
// on which the session sends each file and directory it makes ('f' or 'd',
// the path, a NUL); when the read ends (the session is gone, however it
// ended) it waits until the session has wholly exited, takes the
// directory's lock (a new session that already took it keeps its files),
// removes those files and directories, newest first, and exits (unless the
// session's last record says it removed them itself).  Between fork and
// exit it only makes system calls: the session has threads.  Started once
// the directory is locked, before any FIFO exists, so there is no moment a
// kill leaves one behind.
void ProcfsFiles::start_reaper() {
  int fds[2];  // a socket pair, not a pipe: a send to a dead reaper is no SIGPIPE
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return;
  // A pidfd of the session turns readable only when its last thread has
  // exited, after the kernel closed its descriptors (the lock among them).
  // Neither the end of the read nor a new parent says as much: a thread
  // killed with the others may still hold the descriptor table then.
  int session_fd = int(syscall(SYS_pidfd_open, getpid(), 0u));
  const char* root = root_.c_str();
  pid_t session = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    // Nothing of the session's stays open here (its maps and programs
    // would outlive it, a reader of its output would wait for this end):
    // only its socket as descriptor 3, its pidfd as 4, and /dev/null.
    // (Each first above 9, so neither dup2 overwrites the other's source.)
    int socket_fd = fcntl(fds[0], F_DUPFD, 10);
    int pid_fd = session_fd >= 0 ? fcntl(session_fd, F_DUPFD, 10) : -1;
    if (socket_fd < 0 || dup2(socket_fd, 3) < 0) _exit(0);
    bool have_pidfd = pid_fd >= 0 && dup2(pid_fd, 4) == 4;
    int null = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3 && null >= 0; ++fd) dup2(null, fd);
    syscall(SYS_close_range, have_pidfd ? 5u : 4u, ~0u, 0u);
    static char made[1 << 16];
    size_t len = 0;
    for (;;) {
      ssize_t n = read(3, made + len, sizeof made - 1 - len);
      if (n > 0) len += size_t(n);
      else if (n == 0 || errno != EINTR) break;
    }
    // The session's own "x" record: it removed everything itself.
    if (len >= 2 && made[len - 2] == 'x' && (len == 2 || made[len - 3] == '\0')) _exit(0);
    // The dying session closes its links before its descriptors (tens of
    // ms each when the machine is busy): wait until it has exited (at
    // most a minute).  Without a pidfd (kernels before 5.3), the best
    // sign is being given another parent.
    if (have_pidfd) {
      pollfd exited{4, POLLIN, 0};
      while (poll(&exited, 1, 60 * 1000) < 0 && errno == EINTR) {}
    } else {
      for (int i = 0; i < 6000 && getppid() == session; ++i) {
        timespec tick{0, 10 * 1000 * 1000};
        nanosleep(&tick, nullptr);
      }
    }
    int dir = open(root, O_RDONLY | O_DIRECTORY);
    if (dir < 0 || flock(dir, LOCK_EX | LOCK_NB) != 0) _exit(0);
    // Newest first: from each record's NUL back to the one before it.
    made[len] = '\0';
    for (size_t end = len; end > 0;) {
      size_t begin = end - 1;
      while (begin > 0 && made[begin - 1] != '\0') --begin;
      if (made[begin] == 'f') unlink(made + begin + 1);
      else rmdir(made + begin + 1);
      end = begin;
    }
    _exit(0);
  }
  close(fds[0]);
  if (session_fd >= 0) close(session_fd);
  if (pid < 0) close(fds[1]);
  else reaper_fd_ = fds[1];
}

// What this session made, for remove_all() and for the reaper.
void ProcfsFiles::note_made(char kind, const std::string& path) {
  (kind == 'f' ? made_fifos_ : made_dirs_).push_back(path);
  if (reaper_fd_ < 0) return;
  std::string record = kind + path;
  if (send(reaper_fd_, record.c_str(), record.size() + 1, MSG_NOSIGNAL) < 0) {}  // best effort
}

// /var/tmp/systemtap-$USER/MODULE, locked for this session.
bool ProcfsFiles::make_directory(std::string& error) {
  std::string base = "/var/tmp/systemtap-" + user_name();
  root_ = base + "/" + module_name_;
  bool made = false;
  // Twice: another session may remove an empty base between the two.
  bool ok = false;
  for (int attempt = 0; attempt < 2 && !ok; ++attempt)
    ok = ensure_dir(base, made) && ensure_dir(root_, made);
  // Both are removed at the end when empty, whoever made them (a killed
  // session's reaper removes them too).
  if (!ok) {
    made_dirs_.push_back(base);
    error = "cannot make the procfs directory " + root_ + ": " + errno_text();
    return false;
  }
  lock_fd_ = open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock_fd_ < 0 || flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    bool busy = errno == EWOULDBLOCK;
    made_dirs_.push_back(base);  // the root is another session's: not ours to remove
    error = busy ? "the procfs directory " + root_ +
                       " is in use by another stap session; name this one with -m NAME"
                 : "cannot lock the procfs directory " + root_ + ": " + errno_text();
    return false;
  }
  start_reaper();
  note_made('d', base);
  note_made('d', root_);
  return true;
}

bool ProcfsFiles::make_fifo(File& f, std::string& error) {
  // Directories of a path like "a/b/file".
  for (size_t slash = f.name.find('/'); slash != std::string::npos;
       slash = f.name.find('/', slash + 1)) {
    std::string dir = root_ + "/" + f.name.substr(0, slash);
    bool made = false;
    if (!ensure_dir(dir, made)) {
      error = "cannot make the procfs directory " + dir + ": " + errno_text();
      return false;
    }
    note_made('d', dir);  // removed when empty, as the root is
  }
  f.fifo = root_ + "/" + f.name;
  struct stat st;
  if (lstat(f.fifo.c_str(), &st) == 0) {
    // A killed session's FIFO (the lock says no session serves it now).
    if (!S_ISFIFO(st.st_mode)) {
      error = "cannot serve procfs(\"" + f.name + "\"): " + f.fifo + " exists and is not a FIFO";
      return false;
    }
    unlink(f.fifo.c_str());
  }
  if (mkfifo(f.fifo.c_str(), 0600) != 0 || chmod(f.fifo.c_str(), f.mode) != 0) {
    error = "cannot make the procfs FIFO " + f.fifo + ": " + errno_text();
    return false;
  }
  note_made('f', f.fifo);
  if (f.write) {
    // Read and write: a writer never waits for us, and the last writer's
    // close is no hang-up, so the loop only wakes for data.
    f.wait_fd = open(f.fifo.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  } else {
    f.wait_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (f.wait_fd >= 0) f.server = std::thread([this, &f] { serve_readers(f); });
  }
  if (f.wait_fd < 0) {
    error = "cannot open the procfs FIFO " + f.fifo + ": " + errno_text();
    return false;
  }
  return true;
}

bool ProcfsFiles::take_stdin(File& f, std::string& error) {
  f.wait_fd = STDIN_FILENO;
  struct stat st;
  if (fstat(STDIN_FILENO, &st) != 0) {
    error = "cannot read standard input: " + errno_text();
    return false;
  }
  f.always_ready = !pollable(STDIN_FILENO);
  // Each key as it is typed, unechoed, as staprun reads a terminal.
  if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_terminal_) == 0) {
    termios raw = saved_terminal_;
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    terminal_changed_ = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
  }
  return true;
}

std::vector<std::string> ProcfsFiles::take_written(size_t i, size_t piece) {
  File& f = *files_[i];
  std::vector<std::string> pieces;
  if (piece == 0) piece = 1;
  if (f.is_stdin) piece = 1;
  char buffer[4096];
  // Standard input is read once per wake-up (it is not ours to make
  // non-blocking); a FIFO until it is empty.
  for (int reads = 0; reads < 16; ++reads) {
    ssize_t n = read(f.wait_fd, buffer, sizeof buffer);
    if (n == 0 && f.is_stdin) f.at_end = true;
    if (n <= 0) break;
    for (size_t at = 0; at < size_t(n); at += piece)
      pieces.emplace_back(buffer + at, std::min(piece, size_t(n) - at));
    if (f.is_stdin) break;
  }
  return pieces;
}

bool ProcfsFiles::reader_waiting(size_t i) {
  File& f = *files_[i];
  uint64_t count;
  (void)!read(f.wait_fd, &count, sizeof count);
  std::lock_guard lock(f.mutex);
  return f.waiting && !f.have_text;
}

void ProcfsFiles::serve(size_t i, std::string text) {
  File& f = *files_[i];
  {
    std::lock_guard lock(f.mutex);
    f.text = std::move(text);
    f.have_text = true;
  }
  f.handed.notify_all();
}

// A read file's thread: one reader at a time, as stap's files allow.
void ProcfsFiles::serve_readers(File& f) {
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);  // a reader gone mid-text is EPIPE, not death
  pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
  while (!stopping_) {
    int fd = open(f.fifo.c_str(), O_WRONLY | O_CLOEXEC);  // waits for a reader
    if (fd < 0) {
      if (errno == EINTR) continue;
      return;
    }
    std::string text;
    {
      std::unique_lock lock(f.mutex);
      f.waiting = !stopping_;
      f.have_text = false;
    }
    uint64_t one = 1;
    (void)!write(f.wait_fd, &one, sizeof one);
    {
      std::unique_lock lock(f.mutex);
      f.handed.wait(lock, [&] { return f.have_text || stopping_.load(); });
      f.waiting = false;
      if (f.have_text) text = std::move(f.text);
      f.have_text = false;
    }
    fcntl(fd, F_SETFL, O_NONBLOCK);
    size_t done = 0;
    // The text handed over is written even when the session is ending
    // (its last reader is served); only a reader that stops reading is
    // given up on then.
    while (done < text.size()) {
      ssize_t n = write(fd, text.data() + done, text.size() - done);
      if (n > 0) {
        done += size_t(n);
      } else if (n < 0 && errno == EAGAIN) {
        if (stopping_) break;
        pollfd p{fd, POLLOUT, 0};
        poll(&p, 1, 100);
      } else if (n < 0 && errno != EINTR) {
        break;
      }
    }
    close(fd);
    // The reader sees the end once no writer is left; until it closes, a
    // new open would reach it again, so wait for it to go.
    while (!stopping_) {
      int still = open(f.fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (still < 0) break;
      close(still);
      usleep(1000);
    }
  }
}

void ProcfsFiles::stop_servers() {
  stopping_ = true;
  std::vector<int> unblockers;
  for (auto& f : files_) {
    if (!f->server.joinable()) continue;
    f->handed.notify_all();
    // A thread waiting in open(O_WRONLY) returns once a reader exists.
    int fd = open(f->fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) unblockers.push_back(fd);
  }
  for (auto& f : files_)
    if (f->server.joinable()) f->server.join();
  for (int fd : unblockers) close(fd);
}

void ProcfsFiles::remove_all() {
  for (auto it = made_fifos_.rbegin(); it != made_fifos_.rend(); ++it) unlink(it->c_str());
  made_fifos_.clear();
  // Innermost first; a directory someone else filled stays.
  for (auto it = made_dirs_.rbegin(); it != made_dirs_.rend(); ++it) rmdir(it->c_str());
  made_dirs_.clear();
  if (lock_fd_ >= 0) close(lock_fd_);
  lock_fd_ = -1;
  if (reaper_fd_ >= 0) {
    // Nothing for the reaper to do: a new session of the module may be
    // making the directory again already.
    if (send(reaper_fd_, "x", 2, MSG_NOSIGNAL) < 0) {}
    close(reaper_fd_);
  }
  reaper_fd_ = -1;
}

}  // namespace stap
