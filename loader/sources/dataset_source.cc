// DatasetSource: image files read per sample; the index fingerprinted once.
#include "loader/sources/dataset_source.h"

#include <utility>

#include "base/log.h"
#include "loader/decode/decode.h"
#include "loader/sources/detail/fingerprint.h"

namespace textfeed::loader {

uint64_t dataset_fingerprint(const Dataset& d) {
  internal::Fingerprint f;
  f.text("textfeed dataset index 1");
  f.u64(d.samples.size());
  for (const SampleRecord& r : d.samples) {
    f.text(r.image);
    f.u64(static_cast<uint64_t>(static_cast<int64_t>(r.width)));
    f.u64(static_cast<uint64_t>(static_cast<int64_t>(r.height)));
    f.u64(r.quads.size());
    for (size_t w = 0; w < r.quads.size(); ++w) {
      for (float c : r.quads[w].xy) f.f32(c);
      f.u64(w < r.labels.size() ? r.labels[w] : 0xff);
    }
  }
  return f.value();
}

namespace {

// The records the readers left out, said once for every consumer of a dataset (serve, bench, show,
// the Python Loader): a word or an image dropped without a word to anyone is a silent loss. The
// first kMaxLoggedBadRecords one by one, then their count (`textfeed inspect` lists them all).
constexpr size_t kMaxLoggedBadRecords = 100;
void log_bad_records(const Dataset& ds) {
  if (ds.bad.empty()) return;
  TF_LOG(Warning)
      << "dataset " << ds.root << ": " << ds.bad.size()
      << " annotation record(s) left out or kept without their words; `textfeed inspect " << ds.root
      << "` lists them all";
  for (size_t i = 0; i < ds.bad.size() && i < kMaxLoggedBadRecords; ++i) {
    const BadRecord& b = ds.bad[i];
    std::string where = b.file;
    if (b.line) where.append(":").append(std::to_string(b.line));
    TF_LOG(Warning) << "dataset " << ds.root << ": " << where << ": " << b.reason;
  }
  if (ds.bad.size() > kMaxLoggedBadRecords)
    TF_LOG(Warning) << "dataset " << ds.root << ": ... and " << ds.bad.size() - kMaxLoggedBadRecords
                    << " more annotation record(s)";
}

// Which annotation files were read and where their images were found (docs/dataset_layouts.md):
// the folder was chosen among several, so it is said once.
void log_layout(const Dataset& ds) {
  for (const AnnotationFile& f : ds.files)
    TF_LOG(Info) << "dataset " << ds.root << ": " << f.file << ": " << f.samples
                 << " image(s) from " << (f.image_dir.empty() ? std::string(".") : f.image_dir)
                 << "/";
}

}  // namespace

Result<std::shared_ptr<const DatasetSource>> DatasetSource::open(const std::string& path,
                                                                 const ReaderOptions& o) {
  TF_ASSIGN_OR_RETURN(Dataset ds, open_dataset(path, o));
  log_layout(ds);
  log_bad_records(ds);
  if (ds.samples.empty()) return Status::invalid_argument(path + ": the dataset has no images");
  return std::make_shared<const DatasetSource>(std::move(ds));
}

DatasetSource::DatasetSource(Dataset dataset)
    : dataset_(std::move(dataset)), fingerprint_(dataset_fingerprint(dataset_)) {}

Status DatasetSource::read(size_t i, SampleRead& out) const {
  const SampleRecord& rec = dataset_.samples[i];
  out.name = dataset_.image_path(i);
  // The words first: they come from the index, so an image that cannot be read keeps them.
  out.quads = rec.quads;
  out.labels = rec.labels;
  out.poly_xy = rec.poly_xy;
  out.poly_points = rec.poly_points;
  out.poly_labels = rec.poly_labels;
  out.width = 0;
  out.height = 0;
  out.pre_resized = false;
  out.encoded = {};
  out.pixels = {};
  TF_RETURN_IF_ERROR(read_file(out.name, out.file));
  out.encoded = out.file;
  return Status();
}

std::string DatasetSource::name(size_t i) const { return dataset_.samples.at(i).image; }

std::string DatasetSource::describe() const {
  return "dataset " + dataset_.root + " (" + std::to_string(size()) + " images)";
}

}  // namespace textfeed::loader
