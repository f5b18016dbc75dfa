/* Calls every function the file module traces, once each (plus failing calls, which must leave
 * no record), in a fixed order, and prints what each returned as `key=value` so that the test can
 * build the exact records it expects. argv[1]: a private scratch directory. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

static char g_out[8192];
static size_t g_used;

/* Collected, printed at the end: printing on the way would interleave stdout's own calls. */
static void note(const char* key, long value) {
  g_used += (size_t)snprintf(g_out + g_used, sizeof g_out - g_used, "%s=%ld\n", key, value);
}

static void note_pointer(const char* key, const void* value) {
  g_used += (size_t)snprintf(g_out + g_used, sizeof g_out - g_used, "%s=%p\n", key, value);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    return 2;
  }
  char path[512];
  char path2[512];
  char socket_path[512];
  snprintf(path, sizeof path, "%s/file.txt", argv[1]);
  snprintf(path2, sizeof path2, "%s/created.txt", argv[1]);
  snprintf(socket_path, sizeof socket_path, "%s/sock", argv[1]);

  /* descriptors */
  int o = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  note("open", o);
  if (write(o, "hello\n", 6) != 6) {
    return 3;
  }
  int o64 = open64(path, O_RDONLY);
  note("open64", o64);
  int oat = openat(AT_FDCWD, path, O_RDONLY);
  note("openat", oat);
  int oat64 = openat64(AT_FDCWD, path, O_RDONLY);
  note("openat64", oat64);
  int c = creat(path2, 0644);
  note("creat", c);
  int c64 = creat64(path2, 0600);
  note("creat64", c64);
  int d = dup(o);
  note("dup", d);
  int d2 = dup2(o, 100);
  note("dup2", d2);
  int d3 = dup3(o, 101, O_CLOEXEC);
  note("dup3", d3);
  dup2(o, o);                         /* same number: nothing */
  int onto = dup2(o64, 101);          /* onto an open descriptor: 101 released, then made */
  note("onto", onto);
  int f1 = fcntl(o, F_DUPFD, 200);
  note("fcntl", f1);
  int f2 = fcntl(o, F_DUPFD_CLOEXEC, 300);
  note("fcntl_cloexec", f2);
  (void)fcntl(o, F_GETFD); /* not a descriptor: nothing */
  int p[2];
  int p2[2];
  if (pipe(p) != 0 || pipe2(p2, O_CLOEXEC) != 0) {
    return 4;
  }
  note("pipe0", p[0]);
  note("pipe1", p[1]);
  note("pipe2_0", p2[0]);
  note("pipe2_1", p2[1]);
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  note("socket", s);
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0) {
    return 5;
  }
  note("pair0", sv[0]);
  note("pair1", sv[1]);
  struct sockaddr_un address;
  memset(&address, 0, sizeof address);
  address.sun_family = AF_UNIX;
  strncpy(address.sun_path, socket_path, sizeof address.sun_path - 1);
  if (bind(s, (struct sockaddr*)&address, sizeof address) != 0 || listen(s, 4) != 0) {
    return 6;
  }
  int client = socket(AF_UNIX, SOCK_STREAM, 0);
  note("client", client);
  if (connect(client, (struct sockaddr*)&address, sizeof address) != 0) {
    return 7;
  }
  // The client is unnamed: accept writes only the family, and the rest of `peer` keeps what is
  // here, a name-like string that the tracer must not take for the peer's path.
  struct sockaddr_un peer;
  memset(&peer, 'x', sizeof peer);
  peer.sun_path[sizeof peer.sun_path - 1] = '\0';
  socklen_t peer_length = sizeof peer;
  int a = accept(s, (struct sockaddr*)&peer, &peer_length);
  note("accept", a);
  int client2 = socket(AF_UNIX, SOCK_STREAM, 0);
  note("client2", client2);
  if (connect(client2, (struct sockaddr*)&address, sizeof address) != 0) {
    return 8;
  }
  int a4 = accept4(s, NULL, NULL, SOCK_CLOEXEC);
  note("accept4", a4);
  int e = eventfd(0, 0);
  note("eventfd", e);
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGUSR2);
  int sfd = signalfd(-1, &mask, 0);
  note("signalfd", sfd);
  (void)signalfd(sfd, &mask, 0); /* changes the mask: nothing */
  int t = timerfd_create(CLOCK_MONOTONIC, 0);
  note("timerfd", t);
  int ep = epoll_create(4);
  note("epoll", ep);
  int ep1 = epoll_create1(0);
  note("epoll1", ep1);
  int in = inotify_init();
  note("inotify", in);
  int in1 = inotify_init1(0);
  note("inotify1", in1);
  int m = memfd_create("rtrace", 0);
  note("memfd", m);

  /* failures: nothing recorded */
  if (open("/nonexistent/rtrace", O_RDONLY) != -1 || close(-1) != -1 || dup(-1) != -1 ||
      dup2(-1, 5) != -1 || fopen("/nonexistent/rtrace", "r") != NULL) {
    return 9;
  }

  int all[] = {o64, oat, oat64, c, c64, d, d2, onto, f1, f2, p[0], p[1], p2[0], p2[1], s,
               sv[0], sv[1], client, a, client2, a4, e, sfd, t, ep, ep1, in, in1, m};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
    close(all[i]);
  }

  /* pseudo-terminals, closed together by close_range; two high numbers closed by closefrom */
  int pt = posix_openpt(O_RDWR | O_NOCTTY);
  note("posix_openpt", pt);
  int gp = getpt();
  note("getpt", gp);
  if (pt < 0 || gp < 0 || close_range(pt < gp ? pt : gp, pt < gp ? gp : pt, 0) != 0) {
    return 10;
  }
  note("high", fcntl(o, F_DUPFD, 600));
  note("higher", fcntl(o, F_DUPFD, 700));
  closefrom(600);
  if (fcntl(600, F_GETFD) != -1 || fcntl(pt, F_GETFD) != -1) {
    return 11;
  }

  /* streams */
  FILE* fo = fopen(path, "r");
  note_pointer("fopen", fo);
  FILE* fo64 = fopen64(path, "r");
  note_pointer("fopen64", fo64);
  FILE* fd = fdopen(o, "w"); /* takes descriptor o over */
  note_pointer("fdopen", fd);
  FILE* fr = freopen(path2, "r", fo);
  note_pointer("freopen", fr);
  FILE* tf = tmpfile();
  note_pointer("tmpfile", tf);
  FILE* po = popen("exit 0", "r");
  note_pointer("popen", po);
  char buffer[16] = "memory";
  FILE* fm = fmemopen(buffer, sizeof buffer, "r");
  note_pointer("fmemopen", fm);
  char* stream_text = NULL;
  size_t stream_size = 0;
  FILE* ms = open_memstream(&stream_text, &stream_size);
  note_pointer("memstream", ms);
  fclose(fr);
  fclose(fo64);
  fclose(fd);
  fclose(tf);
  pclose(po);
  fclose(fm);
  fclose(ms);
  free(stream_text);
  fcloseall();
  fputs(g_out, stdout);
  return 0;
}
