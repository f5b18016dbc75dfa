# The README's two commands:
#   make demo    install what is missing, build, trace the bundled example, print its leak report
#   make check   install what is missing, build, run the whole test suite
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all deps build demo check bench format clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD)

check: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	@scripts/install-deps.sh --bench
	bench/run.sh $(BUILD)

format:
	git ls-files '*.cpp' '*.h' '*.c' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
