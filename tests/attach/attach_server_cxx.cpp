// attach_server.c's protocol in C++ (new/delete, std::thread), for `rtrace record -p` on a C++
// program: p pause, r resume, l leak 5 blocks of new char[1234], x exit with status 7.
#include <unistd.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> g_paused{false};
std::atomic<int> g_idle{0};
std::atomic<bool> g_stop{false};
std::vector<char*> g_leaked;

void churn(std::size_t size) {
  while (!g_stop) {
    if (g_paused) {
      ++g_idle;
      while (g_paused && !g_stop) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      --g_idle;
      continue;
    }
    auto block = std::make_unique<std::vector<char>>(size, 'x');
    asm volatile("" : : "r"(block.get()) : "memory");
  }
}

void answer() {
  if (::write(1, "ok\n", 3) != 3) {
    ::_exit(3);
  }
}

}  // namespace

int main() {
  g_leaked.reserve(16);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < 4; ++i) {
    threads.emplace_back(churn, 100 + 8 * i);
  }
  answer();
  char command = 0;
  while (::read(0, &command, 1) == 1) {
    switch (command) {
      case 'p':
        g_paused = true;
        while (g_idle != 4) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        break;
      case 'r':
        g_paused = false;
        break;
      case 'l':
        for (int i = 0; i < 5; ++i) {
          g_leaked.push_back(new char[1234]);
        }
        break;
      case 'x':
        g_stop = true;
        for (std::thread& thread : threads) {
          thread.join();
        }
        answer();
        return 7;
      default:
        continue;
    }
    answer();
  }
  return 5;
}
