int rtrace_fake_module;
