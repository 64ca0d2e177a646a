// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title ISignatureTransfer
/// @notice The signature-transfer surface of Uniswap's Permit2, restated from its public
/// interface so makers can build against the canonical ABI. Struct layouts, function
/// selectors, errors and events match canonical Permit2; the batch variants are omitted
/// because RFQ settlement moves exactly one token per permit.
interface ISignatureTransfer {
    /// @notice Canonical Permit2 reverts with these; keeping them lets clients decode reverts.
    error SignatureExpired(uint256 signatureDeadline);
    error InvalidNonce();
    error InvalidAmount(uint256 maxAmount);
    error InvalidSignatureLength();
    error InvalidSignature();
    error InvalidSigner();
    error InvalidContractSignature();

    event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask);

    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    /// @dev The spender is not part of the struct: Permit2 binds it to msg.sender when hashing.
    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    function DOMAIN_SEPARATOR() external view returns (bytes32);

    function nonceBitmap(address owner, uint256 wordPos) external view returns (uint256);

    function permitTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external;

    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;

    function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) external;
}
