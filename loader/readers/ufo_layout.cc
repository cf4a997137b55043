// The layouts of UFO datasets (docs/dataset_layouts.md): which json files a dataset folder means,
// which folder each json's images are in, and the merge of several json files into one Dataset.
#include "loader/readers/detail/ufo_layout.h"

#include <algorithm>
#include <map>
#include <system_error>
#include <utility>
#include <vector>

#include "loader/readers/detail/text.h"

namespace textfeed::loader::internal {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kReceiptSuffix = "_receipt";

// `p` without a trailing separator ("images/" -> "images"), so that it joins and prints cleanly.
fs::path without_trailing_slash(fs::path p) {
  p = p.lexically_normal();
  if (!p.empty() && !p.has_filename()) p = p.parent_path();
  return p;
}

// The folders <x>_receipt/ of `root` that hold a ufo/ folder, sorted by name (the merge order).
std::vector<std::string> receipt_folders(const fs::path& root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > kReceiptSuffix.size() && name.front() != '.' &&
        name.ends_with(kReceiptSuffix) && fs::is_directory(it->path() / "ufo", ec))
      out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The .json files of `dir` as "<shown_dir>/<name>", space-separated, for messages.
std::string json_files(const fs::path& dir, const std::string& shown_dir) {
  std::string names;
  Result<std::vector<std::string>> files = list_files(dir.string());
  if (files.has_value())
    for (const std::string& f : *files)
      if (fs::path(f).extension() == ".json") names += " " + shown_dir + "/" + f;
  return names.empty() ? std::string(" no .json file") : names;
}

// kInvalidArgument: `folder`/ufo holds no <split>.json.
Status missing_split(const fs::path& root, const std::string& folder, const ReaderOptions& o) {
  const std::string ufo = folder.empty() ? "ufo" : folder + "/ufo";
  return Status::invalid_argument(root.string() + ": no " + ufo + "/" + o.split +
                                  ".json for split '" + o.split +
                                  "' (found:" + json_files(root / ufo, ufo) +
                                  "); choose the split (split=, --split) or name the .json file");
}

// Records which json each image name of samples [first, end) came from. Errors: kInvalidArgument
// for a name already claimed by another json (the reference's dict update would keep only the
// later file's words for it).
Status claim_names(const Dataset& ds, size_t first, const std::string& image_dir,
                   std::map<std::string, std::string>& owner) {
  for (size_t i = first; i < ds.samples.size(); ++i) {
    const SampleRecord& rec = ds.samples[i];
    const std::string name =
        image_dir.empty() ? rec.image : fs::path(rec.image).lexically_relative(image_dir).string();
    const auto [it, fresh] = owner.try_emplace(name, rec.annotation);
    if (!fresh)
      return Status::invalid_argument(ds.root + ": image '" + name + "' is in both " + it->second +
                                      " and " + rec.annotation +
                                      "; merged UFO files must not share an image name");
  }
  return Status();
}

// Every <folder>/ufo/<split>.json of `folders`, in their order, into one Dataset.
Result<Dataset> read_receipts(const fs::path& root, const std::vector<std::string>& folders,
                              const ReaderOptions& o) {
  TF_RETURN_IF_ERROR(validate_options(o));
  Dataset ds;
  ds.root = root.string();
  ds.format = ReaderFormat::kUfo;
  std::map<std::string, std::string> owner;  // image name -> the json it came from
  std::error_code ec;
  for (const std::string& folder : folders) {
    const fs::path json = root / folder / "ufo" / (o.split + ".json");
    if (!fs::exists(json, ec)) return missing_split(root, folder, o);
    TF_ASSIGN_OR_RETURN(const std::string image_dir, ufo_image_dir(root, folder, o.split, o));
    const size_t first = ds.samples.size();
    TF_RETURN_IF_ERROR(read_ufo_part(root, json.string(), image_dir, o, ds));
    TF_RETURN_IF_ERROR(claim_names(ds, first, image_dir, owner));
  }
  std::sort(ds.samples.begin(), ds.samples.end(),
            [](const SampleRecord& a, const SampleRecord& b) { return a.image < b.image; });
  return ds;
}

}  // namespace

bool resolves_inside(const fs::path& root, const fs::path& path) {
  std::error_code ec;
  const fs::path real_root = fs::canonical(root, ec);
  if (ec) return false;
  // Parts that do not exist yet are taken as written: a missing folder cannot lead anywhere (its
  // images fail to read later, each with its name).
  const fs::path real = fs::weakly_canonical(path, ec);
  if (ec) return false;
  const fs::path rel = real.lexically_relative(real_root);
  return !rel.empty() && *rel.begin() != "..";
}

Result<std::string> ufo_image_dir(const fs::path& root, const fs::path& sub,
                                  const std::string& stem, const ReaderOptions& o) {
  std::error_code ec;
  if (!fs::is_directory(root / sub, ec))
    return Status::not_found((root / sub).string() + ": no such folder");
  std::vector<fs::path> candidates;
  if (!stem.empty() && stem != "." && stem != "..") candidates.push_back(sub / "img" / stem);
  candidates.push_back(sub / o.images_dir);
  candidates.push_back(sub);
  for (const fs::path& candidate : candidates) {
    const fs::path rel = without_trailing_slash(candidate);
    const fs::path dir = rel.empty() ? root : root / rel;
    if (!fs::is_directory(dir, ec)) continue;
    if (!resolves_inside(root, dir))
      return Status::invalid_argument(
          dir.string() + ": the image folder leads outside the dataset root " + root.string() +
          " (through a symlink); image folders must stay below it");
    return rel.string();
  }
  return Status::not_found((root / sub).string() + ": no image folder");  // unreachable: sub is one
}

Result<Dataset> open_ufo_folder(const fs::path& root, const ReaderOptions& o) {
  TF_RETURN_IF_ERROR(validate_options(o));
  std::error_code ec;
  if (fs::is_directory(root / "ufo", ec)) {
    const fs::path json = root / "ufo" / (o.split + ".json");
    if (!fs::exists(json, ec)) return missing_split(root, "", o);
    return read_ufo(root.string(), json.string(), o);
  }
  const std::vector<std::string> receipts = receipt_folders(root);
  if (receipts.empty())
    return Status::invalid_argument(
        root.string() + ": not a dataset (no " + o.gt_dir +
        "/ folder for ICDAR-2015, no ufo/ or <x>_receipt/ufo/ folder for UFO json)");
  return read_receipts(root, receipts, o);
}

}  // namespace textfeed::loader::internal
