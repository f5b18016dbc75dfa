// QObject lifetimes for the qobject module: objects made by the program (plain QObjects and
// subclasses of its own), one made inside libQt5Core (a QTimer), children deleted by their
// parent, an object destroyed before anything else happens on its thread, and one leaked on
// purpose. Prints "QObject::QObject 0xobject Class" for every construction the trace must show
// and "QObject::~QObject 0xobject" for every destruction, in the order of the records, then
// "leaked 0xobject".
#include <QObject>
#include <QThread>
#include <QTimer>
#include <cinttypes>
#include <cstdint>
#include <cstdio>

#include "announce_files.h"

class Worker : public QObject {
  Q_OBJECT

 public:
  explicit Worker(QObject* parent = nullptr) : QObject(parent) {}
};

// Two levels above QObject: named after the most derived class all the same.
class LeakyWorker : public Worker {
  Q_OBJECT

 public:
  using Worker::Worker;
};

namespace {

std::uintptr_t address_of(const QObject* object) {
  return reinterpret_cast<std::uintptr_t>(object);
}

void say_created(std::uintptr_t object, const char* class_name) {
  std::printf("QObject::QObject 0x%" PRIxPTR " %s\n", object, class_name);
}

void say_created(const QObject* object) {
  say_created(address_of(object), object->metaObject()->className());
}

void say_destroyed(std::uintptr_t object) {
  std::printf("QObject::~QObject 0x%" PRIxPTR "\n", object);
}

}  // namespace

int main() {
  if (announce_files() != 0) {
    return 4;
  }
  // The main thread's QThread, which Qt makes itself at the first call that needs it.
  const QThread* main_thread = QThread::currentThread();
  say_created(main_thread);

  auto* root = new QObject;
  say_created(root);
  auto* worker = new Worker(root);
  say_created(worker);
  auto* plain = new QObject(root);
  say_created(plain);
  auto* timer = new QTimer(root);  // constructed inside libQt5Core
  say_created(timer);

  delete root;  // the children first, in order, then the parent
  say_destroyed(address_of(worker));
  say_destroyed(address_of(plain));
  say_destroyed(address_of(timer));
  say_destroyed(address_of(root));

  std::uintptr_t scoped_address = 0;
  {
    Worker scoped;  // destroyed before its class could be read: the trace cannot name it
    scoped_address = address_of(&scoped);
  }
  say_created(scoped_address, "(unknown)");
  say_destroyed(scoped_address);

  auto* leaked = new LeakyWorker;
  say_created(leaked);
  std::printf("leaked %p\n", static_cast<void*>(leaked));
  return 0;
}

#include "qobject_objects.moc"
