// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title TestToken
/// @notice Devnet ERC-20 with configurable decimals so the embedded stack can mirror real
/// assets (6-decimal USDC, 18-decimal WETH, ...). Only the owner (the devnet deployer, which
/// backs the operator faucet) can mint.
/// @dev The owner is a constructor argument rather than msg.sender because the devnet deploys
/// through a CREATE2 factory, which would otherwise become the owner.
contract TestToken is ERC20, Ownable {
    uint8 private immutable _decimals;

    constructor(string memory name_, string memory symbol_, uint8 decimals_, address owner_)
        ERC20(name_, symbol_)
        Ownable(owner_)
    {
        _decimals = decimals_;
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
