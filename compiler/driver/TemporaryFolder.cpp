#include "TemporaryFolder.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <iterator>
#include <filesystem>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace moac {

namespace {

// One check runs per process, so one folder at a time; the handler reads it, so it is plain static memory.
char armedFolder[PATH_MAX];
volatile sig_atomic_t armed = 0;
constexpr int stopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
struct sigaction previous[std::size(stopSignals)];

// Removes the (flat) folder with async-signal-safe calls only: getdents64, unlinkat, rmdir. Removing
// entries while listing may skip some, so it lists again until a pass removes nothing.
void removeFolderFromHandler(const char *folder) {
  int fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    alignas(struct dirent64) char buffer[8192];
    for (bool removed = true; removed;) {
      removed = false;
      lseek(fd, 0, SEEK_SET);
      for (ssize_t n; (n = getdents64(fd, buffer, sizeof buffer)) > 0;)
        for (ssize_t at = 0; at < n;) {
          const auto *entry = reinterpret_cast<const struct dirent64 *>(buffer + at);
          at += entry->d_reclen;
          if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0 &&
              unlinkat(fd, entry->d_name, 0) == 0)
            removed = true;
        }
    }
    close(fd);
  }
  rmdir(folder);
}

// SA_RESETHAND has restored the default action, so raising the signal again ends moac with the status
// that the signal's sender expects.
void onStopSignal(int signal) {
  if (armed)
    removeFolderFromHandler(armedFolder);
  raise(signal);
}

void arm(const std::string &folder) {
  std::memcpy(armedFolder, folder.c_str(), folder.size() + 1);
  armed = 1;
  struct sigaction action {};
  action.sa_handler = onStopSignal;
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < std::size(stopSignals); ++i) {
    sigaction(stopSignals[i], nullptr, &previous[i]);
    // A signal ignored when moac started (nohup, a background job) stays ignored.
    if (previous[i].sa_handler != SIG_IGN)
      sigaction(stopSignals[i], &action, nullptr);
  }
}

void disarm() {
  for (size_t i = 0; i < std::size(stopSignals); ++i)
    sigaction(stopSignals[i], &previous[i], nullptr);
  armed = 0;
}

} // namespace

std::unique_ptr<TemporaryFolder> TemporaryFolder::make(const std::string &prefix) {
  std::error_code ec;
  std::string pattern = (std::filesystem::temp_directory_path(ec) / (prefix + "-XXXXXX")).string();
  if (ec || pattern.size() >= PATH_MAX || !mkdtemp(pattern.data()))
    return nullptr;
  arm(pattern);
  return std::unique_ptr<TemporaryFolder>(new TemporaryFolder(pattern));
}

TemporaryFolder::~TemporaryFolder() {
  disarm();
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string shellQuote(const std::string &s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int runShell(const std::string &command) {
  const char *argv[] = {"sh", "-c", command.c_str(), nullptr};
  pid_t child = 0;
  if (posix_spawn(&child, "/bin/sh", nullptr, nullptr, const_cast<char **>(argv), environ) != 0)
    return 127;
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR)
      return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace moac
