// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ISignatureTransfer} from "./ISignatureTransfer.sol";

/// @title RfqMakerWrapper
/// @notice One per maker, deployed by RfqMakerWrapperFactory. It is the Permit2 `spender` the
/// service names in a quote's permit, and it is what makes the permit safe to hand out:
/// Permit2 checks that custody signed the witness but not what the witness says, so this
/// contract recomputes the witness from the maker leg it actually delivers. A permit can
/// therefore only ever pay the maker in a transaction that delivered exactly the signed
/// leg to custody.
contract RfqMakerWrapper {
    using SafeERC20 for IERC20;

    /// @dev Appended by Permit2 to "PermitWitnessTransferFrom(...,"; part of the interface (DESIGN.md §5).
    string public constant WITNESS_TYPE_STRING =
        "RfqFill witness)RfqFill(bytes32 quoteHash,address deliverToken,uint256 deliverAmount,address deliverTo)TokenPermissions(address token,uint256 amount)";
    bytes32 public constant RFQ_FILL_TYPEHASH =
        keccak256("RfqFill(bytes32 quoteHash,address deliverToken,uint256 deliverAmount,address deliverTo)");

    ISignatureTransfer public immutable permit2;
    /// @notice The omnibus address that signs permits and receives the maker leg.
    address public immutable custody;
    /// @notice The maker. Only it may settle, and it is the only possible payee.
    address public immutable owner;

    event RfqSettled(
        bytes32 indexed quoteHash,
        address indexed maker,
        address payToken,
        uint256 payAmount,
        address deliverToken,
        uint256 deliverAmount
    );

    error NotOwner();

    constructor(ISignatureTransfer permit2_, address custody_, address owner_) {
        permit2 = permit2_;
        custody = custody_;
        owner = owner_;
    }

    /// @notice Deliver the maker leg to custody and collect the taker's payment, atomically.
    /// @dev Owner-only so nobody can spend the maker's allowance to this wrapper on the maker's
    /// behalf (e.g. to settle a quote the maker would rather let lapse).
    function settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        address deliverToken,
        uint256 deliverAmount,
        bytes32 quoteHash,
        bytes calldata signature
    ) external {
        if (msg.sender != owner) revert NotOwner();

        // Maker leg first: if the maker has not approved or lacks the funds, nothing moves.
        IERC20(deliverToken).safeTransferFrom(owner, custody, deliverAmount);

        // deliverTo is fixed to custody here, not taken from the caller, so the maker cannot
        // redirect its own leg while presenting a valid custody signature.
        bytes32 witness = keccak256(abi.encode(RFQ_FILL_TYPEHASH, quoteHash, deliverToken, deliverAmount, custody));
        permit2.permitWitnessTransferFrom(
            permit,
            ISignatureTransfer.SignatureTransferDetails({to: owner, requestedAmount: permit.permitted.amount}),
            custody,
            witness,
            WITNESS_TYPE_STRING,
            signature
        );

        emit RfqSettled(quoteHash, owner, permit.permitted.token, permit.permitted.amount, deliverToken, deliverAmount);
    }
}
