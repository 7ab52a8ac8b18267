// bench/deploy/deploy_libtorch.cpp — examples/deploy's program on LibTorch 1.13 (Debian's libtorch-dev), the
// comparison partner of docs/deployment.md: a frozen TorchScript module (export.py: torchvision's
// preprocessing and ResNet18 in one module) and one PNG image read by libpng, classified.
// usage: deploy_libtorch MODEL.pt IMAGE.png   (built and run by bench/deploy/compare)
#include <png.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/script.h>

namespace {

// The image at `path` as a (1, 3, H, W) float tensor of RGB values in [0, 1].
torch::Tensor read_png(const std::string& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str())) throw std::runtime_error("cannot read " + path);
  image.format = PNG_FORMAT_RGB;
  std::vector<png_byte> rgb(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, rgb.data(), 0, nullptr)) throw std::runtime_error("cannot decode " + path);
  const int64_t h = image.height, w = image.width;
  return torch::from_blob(rgb.data(), {1, h, w, 3}, torch::kUInt8).permute({0, 3, 1, 2}).to(torch::kFloat).div(255);
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s MODEL.pt IMAGE.png\n", argv[0]);
    return 2;
  }
  torch::jit::Module model = torch::jit::load(argv[1]);
  c10::InferenceMode inference;
  const torch::Tensor logits = model.forward({read_png(argv[2])}).toTensor();
  const auto [values, indices] = logits.topk(5, 1);
  const torch::Tensor probabilities = logits.softmax(1);
  for (int64_t i = 0; i < 5; ++i) {
    const int64_t index = indices[0][i].item<int64_t>();
    std::printf("class %4lld  logit %9.6f  probability %.6f\n", static_cast<long long>(index),
                values[0][i].item<double>(), probabilities[0][index].item<double>());
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
