#include "emit/merge.hpp"

#include <git2.h>

#include <memory>

#include "emit/output.hpp"

namespace stepgen::emit {

namespace {

// libgit2 wants one global initialisation (its hash and allocator backends); never shut down,
// since the process ends soon after generation anyway.
void init_libgit2() {
  static const int once = git_libgit2_init();
  (void)once;
}

[[noreturn]] void fail(const std::string& what) {
  const git_error* e = git_error_last();
  throw EmitError(what + ": " + (e && e->message ? e->message : "libgit2 error"));
}

git_merge_file_input input(const std::string& text, const char* path) {
  // libgit2's init functions rather than its *_INIT macros, which leave fields to the compiler
  // (clang's -Wmissing-field-initializers).
  git_merge_file_input in;
  if (git_merge_file_input_init(&in, GIT_MERGE_FILE_INPUT_VERSION) != 0)
    fail("git_merge_file_input_init");
  in.ptr = text.data();
  in.size = text.size();
  in.path = path;
  in.mode = 0100644;
  return in;
}

bool starts_line(const std::string& text, const std::string& marker) {
  for (std::size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1))
    if (at == 0 || text[at - 1] == '\n') return true;
  return false;
}

}  // namespace

MergeResult merge_three_way(const std::string& base, const std::string& ours,
                            const std::string& theirs, const std::string& path) {
  init_libgit2();
  git_merge_file_input b = input(base, path.c_str()), o = input(ours, path.c_str()),
                       t = input(theirs, path.c_str());
  const std::string our_label = "yours: " + path, their_label = "stepgen: " + path;
  git_merge_file_options options;
  if (git_merge_file_options_init(&options, GIT_MERGE_FILE_OPTIONS_VERSION) != 0)
    fail("git_merge_file_options_init");
  options.our_label = our_label.c_str();
  options.their_label = their_label.c_str();
  options.flags = GIT_MERGE_FILE_STYLE_MERGE;
  git_merge_file_result result{};
  if (git_merge_file(&result, &b, &o, &t, &options) != 0) fail("cannot merge '" + path + "'");
  // For binary input libgit2 returns no text at all (ptr null), not an empty file.
  MergeResult merged{std::string(result.ptr ? result.ptr : "", result.ptr ? result.len : 0),
                     result.ptr != nullptr && result.automergeable != 0, result.ptr == nullptr};
  git_merge_file_result_free(&result);
  return merged;
}

std::string unified_diff(const std::string* before, const std::string* after,
                         const std::string& path) {
  init_libgit2();
  if ((before ? *before : "") == (after ? *after : "") && (before == nullptr) == (after == nullptr))
    return {};
  git_diff_options options;
  if (git_diff_options_init(&options, GIT_DIFF_OPTIONS_VERSION) != 0) fail("git_diff_options_init");
  options.context_lines = 3;
  git_patch* patch = nullptr;
  if (git_patch_from_buffers(&patch, before ? before->data() : nullptr, before ? before->size() : 0,
                             before ? path.c_str() : nullptr, after ? after->data() : nullptr,
                             after ? after->size() : 0, after ? path.c_str() : nullptr,
                             &options) != 0)
    fail("cannot diff '" + path + "'");
  std::unique_ptr<git_patch, void (*)(git_patch*)> owner(patch, git_patch_free);
  git_buf buf = GIT_BUF_INIT;
  if (git_patch_to_buf(&buf, patch) != 0) fail("cannot diff '" + path + "'");
  std::string text(buf.ptr ? buf.ptr : "", buf.size);
  git_buf_dispose(&buf);
  return text;
}

std::string content_hash(const std::string& data) {
  init_libgit2();
  git_oid oid;
  if (git_odb_hash(&oid, data.data(), data.size(), GIT_OBJECT_BLOB) != 0) fail("cannot hash");
  char hex[GIT_OID_HEXSZ + 1] = {};
  git_oid_fmt(hex, &oid);
  return hex;
}

bool looks_binary(const std::string& data) {
  // git's rule (xdiff's and libgit2's merge_file__is_binary): a NUL in the first 8,000 bytes.
  return data.find('\0') < 8000;
}

bool has_conflict_markers(const std::string& text) {
  return starts_line(text, "<<<<<<< yours: ") && starts_line(text, ">>>>>>> stepgen: ");
}

}  // namespace stepgen::emit
