// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ISignatureTransfer} from "./ISignatureTransfer.sol";
import {RfqMakerWrapper} from "./RfqMakerWrapper.sol";

/// @title RfqMakerWrapperFactory
/// @notice The only source of wrappers the service trusts as Permit2 spenders. Because every
/// wrapper comes from this bytecode with this factory's Permit2 and custody, checking
/// `wrapperOf(maker) == spender` is enough for the service to know the spender enforces the
/// RfqFill witness and pays nobody but the maker.
contract RfqMakerWrapperFactory {
    ISignatureTransfer public immutable permit2;
    address public immutable custody;

    /// @notice maker => its wrapper; zero if none.
    mapping(address => address) public wrapperOf;

    event WrapperDeployed(address indexed owner, address wrapper);

    error WrapperExists(address owner, address wrapper);
    error ZeroOwner();

    constructor(ISignatureTransfer permit2_, address custody_) {
        permit2 = permit2_;
        custody = custody_;
    }

    /// @notice Anyone may deploy a maker's wrapper (it can only ever act for that maker), but only once,
    /// so the maker's spender address never changes under the service.
    /// @dev CREATE2 salted by the owner makes the address predictable before deployment.
    function deploy(address owner) external returns (address wrapper) {
        if (owner == address(0)) revert ZeroOwner();
        address existing = wrapperOf[owner];
        if (existing != address(0)) revert WrapperExists(owner, existing);
        wrapper = address(new RfqMakerWrapper{salt: bytes32(uint256(uint160(owner)))}(permit2, custody, owner));
        wrapperOf[owner] = wrapper;
        emit WrapperDeployed(owner, wrapper);
    }
}
