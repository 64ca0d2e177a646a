// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

/// @title XchangeAdapter
/// @notice Settlement adapter for `xchange` mode: executes both legs of an adapter-signed swap
/// message in one transaction, so neither side can be paid without the other paying.
///
/// EIP-712 domain: name "RfqXchangeAdapter", version "1", chainId, verifyingContract = this
/// contract. Types:
///   SwapMessage(string quoteId,uint256 expiration,SwapTransfer incomingTransfer,SwapTransfer outgoingTransfer)
///   SwapTransfer(address token,address from,address to,uint256 amount)
///
/// Authorisation: both transfers move by ERC-20 allowance to this contract, and each
/// transfer's `from` must have consented, either by sending the transaction itself or by
/// having registered the signer (`setSigner`; an address is implicitly its own signer).
/// The signer must be registered by at least one of the two `from` parties, so a signature
/// never counts for nothing. Typical use: the maker registers its adapter signer once, the
/// signer signs the bundle, and the service (custody) executes it after checking it.
contract XchangeAdapter is EIP712 {
    using SafeERC20 for IERC20;

    struct SwapTransfer {
        address token;
        address from;
        address to;
        uint256 amount;
    }

    struct SwapMessage {
        string quoteId;
        uint256 expiration;
        SwapTransfer incomingTransfer;
        SwapTransfer outgoingTransfer;
    }

    bytes32 public constant SWAP_TRANSFER_TYPEHASH =
        keccak256("SwapTransfer(address token,address from,address to,uint256 amount)");
    bytes32 public constant SWAP_MESSAGE_TYPEHASH = keccak256(
        "SwapMessage(string quoteId,uint256 expiration,SwapTransfer incomingTransfer,SwapTransfer outgoingTransfer)SwapTransfer(address token,address from,address to,uint256 amount)"
    );

    /// @notice party => signer => may sign swaps that move the party's funds.
    mapping(address => mapping(address => bool)) public isSignerFor;
    /// @notice keccak256(utf8(quoteId)) => already executed. A quote settles at most once.
    mapping(bytes32 => bool) public quoteUsed;

    event SignerSet(address indexed party, address indexed signer, bool allowed);
    event XchangeSettled(
        bytes32 indexed quoteHash,
        address indexed signer,
        address indexed executor,
        string quoteId,
        SwapTransfer incomingTransfer,
        SwapTransfer outgoingTransfer
    );

    error SwapExpired(uint256 expiration);
    error QuoteAlreadyUsed(bytes32 quoteHash);
    error SignerNotRegistered(address signer);
    error TransferNotAuthorised(address from);

    constructor() EIP712("RfqXchangeAdapter", "1") {}

    function setSigner(address signer, bool allowed) external {
        isSignerFor[msg.sender][signer] = allowed;
        emit SignerSet(msg.sender, signer, allowed);
    }

    /// @notice The EIP-712 digest a signer signs for `message`.
    function swapDigest(SwapMessage calldata message) public view returns (bytes32) {
        return _hashTypedDataV4(
            keccak256(
                abi.encode(
                    SWAP_MESSAGE_TYPEHASH,
                    keccak256(bytes(message.quoteId)),
                    message.expiration,
                    _hashTransfer(message.incomingTransfer),
                    _hashTransfer(message.outgoingTransfer)
                )
            )
        );
    }

    function execute(SwapMessage calldata message, bytes calldata signature) external {
        // Inclusive, like Permit2: the expiration second itself is still valid.
        if (block.timestamp > message.expiration) revert SwapExpired(message.expiration);
        bytes32 quoteHash = keccak256(bytes(message.quoteId));
        if (quoteUsed[quoteHash]) revert QuoteAlreadyUsed(quoteHash);
        quoteUsed[quoteHash] = true;

        address signer = ECDSA.recoverCalldata(swapDigest(message), signature);
        address inFrom = message.incomingTransfer.from;
        address outFrom = message.outgoingTransfer.from;
        if (!_signsFor(signer, inFrom) && !_signsFor(signer, outFrom)) revert SignerNotRegistered(signer);
        if (inFrom != msg.sender && !_signsFor(signer, inFrom)) revert TransferNotAuthorised(inFrom);
        if (outFrom != msg.sender && !_signsFor(signer, outFrom)) revert TransferNotAuthorised(outFrom);

        _move(message.incomingTransfer);
        _move(message.outgoingTransfer);

        emit XchangeSettled(
            quoteHash, signer, msg.sender, message.quoteId, message.incomingTransfer, message.outgoingTransfer
        );
    }

    function _signsFor(address signer, address party) private view returns (bool) {
        return signer == party || isSignerFor[party][signer];
    }

    function _move(SwapTransfer calldata t) private {
        IERC20(t.token).safeTransferFrom(t.from, t.to, t.amount);
    }

    function _hashTransfer(SwapTransfer calldata t) private pure returns (bytes32) {
        return keccak256(abi.encode(SWAP_TRANSFER_TYPEHASH, t.token, t.from, t.to, t.amount));
    }
}
