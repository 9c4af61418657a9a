/**
 * Which llama.cpp build node-llama-cpp loaded, for logs and Settings: its CUDA, Vulkan or Metal build when
 * the machine has that GPU (getLlama({ gpu: "auto" }) tries them), else the CPU build.
 */
const NAMES: Record<string, string> = { cuda: "CUDA", vulkan: "Vulkan", metal: "Metal" };

export function describeBackend(gpu: string | false | null | undefined): string {
  return gpu ? `${NAMES[gpu] ?? gpu} GPU build` : "CPU build";
}
