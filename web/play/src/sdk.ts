// The one place the game names the SDK: its browser entry, bundled from source by esbuild
// (build.mjs resolves its @bufbuild/protobuf from this package's node_modules through
// `nodePaths`, so the SDK's own node_modules need not be installed).
export * from "../../../clients/typescript/src/index.ts";
