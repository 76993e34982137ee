// Hardhat 2 config (CommonJS because the package is "type":"module").
// Compiles OFFLINE with the `solc` npm package (stack-recipes §3a): the solc build lookup is
// overridden so Hardhat never tries to download a compiler.
const { subtask } = require("hardhat/config");
const { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } = require("hardhat/builtin-tasks/task-names");

const SOLC_VERSION = require("solc/package.json").version; // 0.8.28

subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args, _hre, runSuper) => {
  if (args.solcVersion !== SOLC_VERSION) return runSuper(args);
  const solc = require("solc");
  // solc-js reports "0.8.28+commit.7893614a.Emscripten.clang"; Hardhat wants the part before ".Emscripten".
  const longVersion = solc.version().match(/^\d+\.\d+\.\d+\+commit\.[0-9a-f]+/)[0];
  return {
    compilerPath: require.resolve("solc/soljson.js"),
    isSolcJs: true,
    version: args.solcVersion,
    longVersion,
  };
});

/** @type {import("hardhat/config").HardhatUserConfig} */
module.exports = {
  solidity: {
    version: SOLC_VERSION,
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun" },
  },
  networks: {
    // In-process network used by the contract tests. The gas limit is raised so property tests can
    // batch hundreds of payments per transaction; local chains (src/local-chains.ts) use 30M.
    hardhat: {
      chainId: 31337,
      hardfork: "cancun",
      blockGasLimit: 1_000_000_000,
      initialBaseFeePerGas: 0,
      loggingEnabled: false,
    },
  },
  mocha: { timeout: 60_000 },
};
