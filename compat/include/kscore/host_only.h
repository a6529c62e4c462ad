/* kscore compatibility headers: stand-ins for names that exist only on the host.
 *
 * kscore compiles device code alone, with NVRTC. A submission may include a host-only header
 * (<vector>, <iostream>, <torch/extension.h>, <cublas_v2.h>...) that its device code never uses;
 * nvcc accepts that, so kscore does too: the header is an empty stand-in. Using one of its names
 * in device code still fails, and the error NVRTC prints is the message given here. Each name is
 * a class template whose body asserts false for every argument, so nothing fires until a use
 * needs the class to be complete (a variable, a member access, an operator). */
#ifndef KSCORE_HOST_ONLY_H
#define KSCORE_HOST_ONLY_H

namespace kscore {
template <class...> struct always_false { static constexpr bool value = false; };
}

/* A host-only class template: `template <...> class name`. */
#define KSCORE_HOST_ONLY_TEMPLATE(name, message)                                              \
	template <class... KsArgs> struct name {                                               \
		static_assert(::kscore::always_false<KsArgs...>::value, message);              \
	}

/* A host-only class that is not a template: an alias of a template instance. */
#define KSCORE_HOST_ONLY_CLASS(name, message)                                                 \
	template <class KsArg = void> struct kscore_host_only_##name {                         \
		static_assert(::kscore::always_false<KsArg>::value, message);                  \
	};                                                                                     \
	using name = kscore_host_only_##name<>

/* A host-only object (std::cout): any use needs its type to be complete. */
#define KSCORE_HOST_ONLY_OBJECT(name, message)                                                \
	template <class KsArg = void> struct kscore_host_only_##name {                         \
		static_assert(::kscore::always_false<KsArg>::value, message);                  \
	};                                                                                     \
	extern kscore_host_only_##name<> name

#endif
