// examples/deploy/deploy.cpp — the smallest deployment: ResNet18's weights from a safetensors file,
// optimize_for_inference, one PNG image (read by libpng) classified; linked statically against the runtime.
// usage: deploy MODEL.safetensors IMAGE.png [--check EXPECTED.txt]   (EXPECTED: PyTorch's top 5, make_expected.py)
#include <png.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <torchless/torchless.h>
#include "models/resnet.h"

namespace {

// The image at `path` as a (1, 3, H, W) float tensor of RGB values in [0, 1].
tl::Tensor read_png(const std::string& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str())) {
    throw tl::Error("deploy: cannot read " + path + ": " + image.message);
  }
  image.format = PNG_FORMAT_RGB;
  std::vector<png_byte> rgb(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, rgb.data(), 0, nullptr)) {
    throw tl::Error("deploy: cannot decode " + path + ": " + image.message);
  }
  const int64_t h = image.height, w = image.width;
  std::vector<float> chw(3 * h * w);
  for (int64_t c = 0; c < 3; ++c) {
    for (int64_t i = 0; i < h * w; ++i) chw[c * h * w + i] = rgb[i * 3 + c] / 255.0f;
  }
  return tl::from_vector(chw, {1, 3, h, w});
}

// torchvision's ImageNet preprocessing, with the resize straight to 224 x 224 (bilinear).
tl::Tensor preprocess(const tl::Tensor& image) {
  namespace F = tl::nn::functional;
  const tl::Tensor resized = F::interpolate(image, {.size = std::vector<int64_t>{224, 224}, .mode = "bilinear",
                                                    .align_corners = false});
  const tl::Tensor mean = tl::from_vector(std::vector<float>{0.485f, 0.456f, 0.406f}, {1, 3, 1, 1});
  const tl::Tensor std = tl::from_vector(std::vector<float>{0.229f, 0.224f, 0.225f}, {1, 3, 1, 1});
  return (resized - mean) / std;
}

struct Scored {
  int64_t index;
  double logit, probability;
};

// The five most probable classes.
std::vector<Scored> top5(const tl::Tensor& logits) {
  const auto best = tl::topk(logits, 5, 1);
  const tl::Tensor probabilities = tl::softmax(logits, 1);
  std::vector<Scored> out;
  for (int64_t i = 0; i < 5; ++i) {
    const int64_t index = best.indices.index({0, i}).item<int64_t>();
    out.push_back({index, best.values.index({0, i}).item<double>(), probabilities.index({0, index}).item<double>()});
  }
  return out;
}

// Compares with PyTorch's top 5 in `path` ("index logit" lines, make_expected.py): the same classes in the
// same order, logits within rtol 1e-4 and atol 1e-4 (tests/models/test_parity.cpp's tolerance).
bool check(const std::vector<Scored>& got, const std::string& path) {
  std::ifstream in(path);
  bool ok = static_cast<bool>(in);
  for (const Scored& s : got) {
    int64_t want_index = -1;
    double want = 0;
    in >> want_index >> want;
    const bool same = in && want_index == s.index && std::fabs(want - s.logit) <= 1e-4 + 1e-4 * std::fabs(want);
    if (!same) {
      std::printf("mismatch: class %lld logit %.6f, PyTorch's class %lld logit %.6f\n",
                  static_cast<long long>(s.index), s.logit, static_cast<long long>(want_index), want);
    }
    ok = ok && same;
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc != 3 && !(argc == 5 && std::string(argv[3]) == "--check")) {
    std::fprintf(stderr, "usage: %s MODEL.safetensors IMAGE.png [--check EXPECTED.txt]\n", argv[0]);
    return 2;
  }
  auto model = tl::models::resnet18();
  tl::nn::load(*model, argv[1]);
  model->eval();
  auto optimized = tl::fx::optimize_for_inference(model);
  tl::NoGradGuard no_grad;
  const auto best = top5((*optimized)(preprocess(read_png(argv[2]))));
  for (const Scored& s : best) {
    std::printf("class %4lld  logit %9.6f  probability %.6f\n", static_cast<long long>(s.index), s.logit, s.probability);
  }
  return argc == 5 && !check(best, argv[4]) ? 1 : 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
