// libjpeg's errors as a longjmp back to the caller's setjmp, with libjpeg's message kept: the one
// error manager of textfeed's libjpeg calls (window decode, restart-row encode). Include after
// <jpeglib.h>. The frame that calls setjmp must hold nothing with a destructor.
#pragma once

#include <jpeglib.h>

#include <csetjmp>
#include <cstdio>

namespace textfeed::loader::internal {

struct JpegErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

extern "C" inline void jpeg_error_longjmp(j_common_ptr cinfo) {
  auto* e = reinterpret_cast<JpegErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, e->message);
  std::longjmp(e->jump, 1);
}

// Warnings as errors: libjpeg would pad damaged data with grey and go on; a training sample is
// corrupt.
extern "C" inline void jpeg_warning_longjmp(j_common_ptr cinfo, int level) {
  if (level >= 0) return;  // trace messages
  jpeg_error_longjmp(cinfo);
}

// Installs the manager on cinfo's `err`; the caller then calls setjmp(e.jump).
template <class Info>
void install_jpeg_errors(Info& cinfo, JpegErrorManager& e, bool warnings_are_errors) {
  cinfo.err = jpeg_std_error(&e.pub);
  e.pub.error_exit = jpeg_error_longjmp;
  if (warnings_are_errors) e.pub.emit_message = jpeg_warning_longjmp;
  e.message[0] = '\0';
}

}  // namespace textfeed::loader::internal
